import type { ArticleAnalyticsResolvers } from '../__generated__/resolvers-types';
import { analyticsFetchedAt, analyticsValue } from '../../reporting/analytics/articleAnalytics';
import { FIELD_METRICS } from '../../reporting/analytics/selection';

const iso = (millis: number): string => new Date(millis).toISOString();

export const ArticleAnalytics: ArticleAnalyticsResolvers = {
  from: (parent) => iso(parent.window.from),
  to: (parent) => iso(parent.window.to),
  pageViews: async (parent, _args, context) => (await analyticsValue(parent, FIELD_METRICS.pageViews, context.articleMetrics)).value,
  uniqueUsers: async (parent, _args, context) => (await analyticsValue(parent, FIELD_METRICS.uniqueUsers, context.articleMetrics)).value,
  averageDurationPerPage: async (parent, _args, context) =>
    (await analyticsValue(parent, FIELD_METRICS.averageDurationPerPage, context.articleMetrics)).value,
  averageScroll: async (parent, _args, context) =>
    (await analyticsValue(parent, FIELD_METRICS.averageScroll, context.articleMetrics)).value,
  revenue: async (parent, _args, context) => (await analyticsValue(parent, FIELD_METRICS.revenue, context.articleMetrics)).value,
  metric: async (parent, { metric }, context) => (await analyticsValue(parent, metric, context.articleMetrics)).value,
  fetchedAt: async (parent, _args, context) => iso(await analyticsFetchedAt(parent, context.articleMetrics)),
};
