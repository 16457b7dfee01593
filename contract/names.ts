/**
 * The names the reporting dashboard query uses on the wire
 * (docs/upstream-contract.md §2): metrics, dimensions, filter operators,
 * granularities, units of a relative window and sort directions.
 */

export const METRIC_NAMES = [
  'pageViewsTotal',
  'uniqueUsers',
  'totalDuration',
  'averageDurationPerUser',
  'averageDurationPerPage',
  'pageViewsPerUser',
  'averageScroll',
  'averageRFV',
  'cumulativeRFV',
  'revenueTotal',
  'adsImpressions',
  'CPM',
  'RPM',
  'adsPerPage',
  'newArticles',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** Dimensions describing the visit, not the article: `newArticles` (a count of articles) cannot be split or filtered by them. */
export const TRAFFIC_DIMENSION_NAMES = [
  'source',
  'sourceInternal',
  'medium',
  'mediumInternal',
  'campaign',
  'campaignInternal',
  'deviceType',
  'userType',
] as const;
export type TrafficDimensionName = (typeof TRAFFIC_DIMENSION_NAMES)[number];

/** Dimensions of the article a page view is of. */
export const ARTICLE_DIMENSION_NAMES = ['url', 'title', 'section', 'author', 'domain'] as const;
export type ArticleDimensionName = (typeof ARTICLE_DIMENSION_NAMES)[number];

export type DimensionName = TrafficDimensionName | ArticleDimensionName;

export const FILTER_OPERATORS = ['eq', 'neq', 'like', 'nlike'] as const;
export type FilterOperatorName = (typeof FILTER_OPERATORS)[number];

/** Dimensions with a small closed set of values, which only compare for (in)equality [docs]. */
export const EQUALITY_ONLY_DIMENSIONS: readonly DimensionName[] = ['deviceType', 'userType'];
export const EQUALITY_OPERATORS: readonly FilterOperatorName[] = ['eq', 'neq'];

/** Finest first: the default granularity is the first one available for the window. */
export const GRANULARITY_NAMES = ['realtime', 'hourly', 'daily'] as const;
export type GranularityName = (typeof GRANULARITY_NAMES)[number];

export const TIME_UNIT_NAMES = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type TimeUnitName = (typeof TIME_UNIT_NAMES)[number];

export const SORT_NAMES = ['DESC', 'ASC'] as const;
export type SortName = (typeof SORT_NAMES)[number];

export function isTrafficDimension(value: unknown): value is TrafficDimensionName {
  return (TRAFFIC_DIMENSION_NAMES as readonly unknown[]).includes(value);
}
