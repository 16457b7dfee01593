import type { QueryResolvers } from '../__generated__/resolvers-types';
import { dashboardTtlSeconds } from '../dashboard/cacheTtl';
import { toDashboardQueryBody } from '../dashboard/toQueryBody';
import { validateDashboardQuery } from '../dashboard/validate';
import { hintFreshness, recommendationScope } from './cacheHints';
import { rejectInvalid } from './invalidArguments';
import { rankRecommendations, stampDashboardResults } from './parents';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Query: QueryResolvers = {
  recommendations: async (_root, args, context, info) => {
    const params = toRenderParams(args);
    rejectInvalid(validateRenderParams(params));
    const answer = await context.recommendations.load(params);
    const scope = recommendationScope(params.clientId);
    hintFreshness(info, { ttlSeconds: context.cacheTtls.renderTtlSeconds, fetchedAt: answer.fetchedAt, scope, now: Date.now() });
    return rankRecommendations(answer);
  },

  dashboard: async (_root, { query }, context, info) => {
    rejectInvalid(validateDashboardQuery(query));
    const answer = await context.reporting.query(toDashboardQueryBody(query));
    // The analytics of the one service account: the same answer for every caller, so shared caches may keep it.
    const now = Date.now();
    const ttlSeconds = dashboardTtlSeconds(query.dates, now, context.cacheTtls.dashboardTtlSeconds);
    hintFreshness(info, { ttlSeconds, fetchedAt: answer.fetchedAt, scope: 'PUBLIC', now });
    return stampDashboardResults(answer);
  },
};
