import type { QueryResolvers } from '../__generated__/resolvers-types';
import { resolveTopArticles } from '../analytics/topArticles';
import { toDashboardQueryBody } from '../../reporting/dashboard/toQueryBody';
import { validateDashboardQuery } from '../../reporting/dashboard/validate';
import { rejectInvalid } from '../errors';
import { rankRecommendations, stampDashboardResults } from '../parents/mappers';
import { hintDashboardAnswer, hintRenderAnswer, recommendationScope } from '../responseCache/cacheHints';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Query: QueryResolvers = {
  recommendations: async (_root, args, context, info) => {
    const params = toRenderParams(args);
    rejectInvalid(validateRenderParams(params));
    const answer = await context.recommendations.load(params);
    hintRenderAnswer(info, context.cacheTtls, answer.fetchedAt, recommendationScope(params.clientId), context.now);
    return rankRecommendations(answer);
  },

  dashboard: async (_root, { query }, context, info) => {
    rejectInvalid(validateDashboardQuery(query, { maxRows: context.maxRows }));
    const answer = await context.reads.dashboard(toDashboardQueryBody(query));
    hintDashboardAnswer(info, context.cacheTtls, query.dates, answer.fetchedAt, context.now, context.reads.cacheScope);
    return stampDashboardResults(answer);
  },

  topArticles: (_root, args, context, info) => resolveTopArticles(args, context, info),
};
