import type { QueryResolvers } from '../__generated__/resolvers-types';
import { toDashboardQueryBody } from '../dashboard/toQueryBody';
import { validateDashboardQuery } from '../dashboard/validate';
import { rejectInvalid } from '../errors';
import { rankRecommendations, stampDashboardResults } from './mappers';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Query: QueryResolvers = {
  recommendations: async (_root, args, context) => {
    const params = toRenderParams(args);
    rejectInvalid(validateRenderParams(params));
    return rankRecommendations(await context.recommendations.load(params));
  },

  dashboard: async (_root, { query }, context) => {
    rejectInvalid(validateDashboardQuery(query));
    return stampDashboardResults(await context.reporting.query(toDashboardQueryBody(query)));
  },
};
