import type { QueryResolvers } from '../__generated__/resolvers-types';
import { toDashboardQueryBody } from '../dashboard/toQueryBody';
import { validateDashboardQuery } from '../dashboard/validate';
import { rejectInvalid } from '../errors';
import { rankRecommendations, stampDashboardResults } from './mappers';
import { hintDashboardAnswer, hintRenderAnswer, recommendationScope } from './cacheHints';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Query: QueryResolvers = {
  recommendations: async (_root, args, context, info) => {
    const params = toRenderParams(args);
    rejectInvalid(validateRenderParams(params));
    const answer = await context.recommendations.load(params);
    hintRenderAnswer(info, context.cacheTtls, answer.fetchedAt, recommendationScope(params.clientId));
    return rankRecommendations(answer);
  },

  dashboard: async (_root, { query }, context, info) => {
    rejectInvalid(validateDashboardQuery(query));
    const answer = await context.reporting.query(toDashboardQueryBody(query));
    hintDashboardAnswer(info, context.cacheTtls, query.dates, answer.fetchedAt);
    return stampDashboardResults(answer);
  },
};
