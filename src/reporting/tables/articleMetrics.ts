import type { MetricName } from '../../kernel/wire';
import { Metric } from '../../../contract';

/**
 * The metrics an article's analytics carries, by the name of the
 * ArticleAnalytics field that reads each (`metric(metric:)` names its own):
 * what the article tables hold and what a selection asks for.
 */
export const FIELD_METRICS: Readonly<Record<string, MetricName>> = {
  pageViews: Metric.PAGE_VIEWS_TOTAL,
  uniqueUsers: Metric.UNIQUE_USERS,
  averageDurationPerPage: Metric.AVERAGE_DURATION_PER_PAGE,
  averageScroll: Metric.AVERAGE_SCROLL,
  revenue: Metric.REVENUE_TOTAL,
};
