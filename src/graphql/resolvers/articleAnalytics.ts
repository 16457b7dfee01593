import type { ArticleAnalyticsResolvers } from '../__generated__/resolvers-types';
import { analyticsValue } from '../analytics/resolveArticleAnalytics';
import { FIELD_METRICS } from '../../reporting/tables/articleMetrics';
import { dateTimeOf } from '../scalars/dateTime';

export const ArticleAnalytics: ArticleAnalyticsResolvers = {
  from: (parent) => dateTimeOf(parent.window.from),
  to: (parent) => dateTimeOf(parent.window.to),
  pageViews: (parent, _args, context) => analyticsValue(parent, FIELD_METRICS.pageViews, context.articleMetrics),
  uniqueUsers: (parent, _args, context) => analyticsValue(parent, FIELD_METRICS.uniqueUsers, context.articleMetrics),
  averageDurationPerPage: (parent, _args, context) => analyticsValue(parent, FIELD_METRICS.averageDurationPerPage, context.articleMetrics),
  averageScroll: (parent, _args, context) => analyticsValue(parent, FIELD_METRICS.averageScroll, context.articleMetrics),
  revenue: (parent, _args, context) => analyticsValue(parent, FIELD_METRICS.revenue, context.articleMetrics),
  metric: (parent, { metric }, context) => analyticsValue(parent, metric, context.articleMetrics),
  fetchedAt: (parent) => dateTimeOf(parent.fetchedAt),
};
