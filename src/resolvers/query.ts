import type { QueryResolvers } from '../__generated__/resolvers-types';
import { rankArticles, toTopArticlesRequest, topArticlesQuery, validateTopArticles } from '../analytics/topArticles';
import { resolveWindow } from '../analytics/window';
import { toDashboardQueryBody } from '../dashboard/toQueryBody';
import { validateDashboardQuery } from '../dashboard/validate';
import { rejectInvalid } from './invalidArguments';
import { rankRecommendations, stampDashboardResults } from './parents';
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

  topArticles: async (_root, args, context) => {
    const request = toTopArticlesRequest(args);
    rejectInvalid(validateTopArticles(request));
    const window = resolveWindow(request.window, context.operationInstant);
    return rankArticles(await context.reporting.query(topArticlesQuery(request, window)));
  },
};
