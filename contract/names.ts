/**
 * The names the reporting dashboard query uses on the wire
 * (docs/upstream-contract.md §2): metrics, dimensions, filter operators,
 * granularities, units of a relative window and sort directions.
 *
 * Each is defined once, as a map from the GraphQL schema's name to the
 * upstream's name. codegen.yml points `enumValues` here, so the generated
 * types of arguments and parents ARE the upstream names (e.g. `Metric` =
 * 'pageViewsTotal' | ...) and wire payloads flow through unchanged; the same
 * objects are the runtime enum resolver maps that make Apollo translate both
 * ways (src/graphql/resolvers/index.ts proves their keys are the schema's).
 * The lists of names below are read off these maps.
 */

export const Metric = {
  PAGE_VIEWS_TOTAL: 'pageViewsTotal',
  UNIQUE_USERS: 'uniqueUsers',
  TOTAL_DURATION: 'totalDuration',
  AVERAGE_DURATION_PER_USER: 'averageDurationPerUser',
  AVERAGE_DURATION_PER_PAGE: 'averageDurationPerPage',
  PAGE_VIEWS_PER_USER: 'pageViewsPerUser',
  AVERAGE_SCROLL: 'averageScroll',
  AVERAGE_RFV: 'averageRFV',
  CUMULATIVE_RFV: 'cumulativeRFV',
  REVENUE_TOTAL: 'revenueTotal',
  ADS_IMPRESSIONS: 'adsImpressions',
  CPM: 'CPM',
  RPM: 'RPM',
  ADS_PER_PAGE: 'adsPerPage',
  NEW_ARTICLES: 'newArticles',
} as const;
export type Metric = (typeof Metric)[keyof typeof Metric];

/** Dimensions describing the visit, not the article: `newArticles` (a count of articles) cannot be split or filtered by them. */
const TrafficDimension = {
  SOURCE: 'source',
  SOURCE_INTERNAL: 'sourceInternal',
  MEDIUM: 'medium',
  MEDIUM_INTERNAL: 'mediumInternal',
  CAMPAIGN: 'campaign',
  CAMPAIGN_INTERNAL: 'campaignInternal',
  DEVICE_TYPE: 'deviceType',
  USER_TYPE: 'userType',
} as const;

/** Dimensions of the article a page view is of. */
const ArticleDimension = {
  URL: 'url',
  TITLE: 'title',
  SECTION: 'section',
  AUTHOR: 'author',
  DOMAIN: 'domain',
} as const;

export const Dimension = { ...TrafficDimension, ...ArticleDimension } as const;
export type Dimension = (typeof Dimension)[keyof typeof Dimension];

/** Finest first: the default granularity is the first one available for the window. */
export const Granularity = {
  REALTIME: 'realtime',
  HOURLY: 'hourly',
  DAILY: 'daily',
} as const;
export type Granularity = (typeof Granularity)[keyof typeof Granularity];

export const TimeUnit = {
  MINUTE: 'minute',
  HOUR: 'hour',
  DAY: 'day',
  WEEK: 'week',
  MONTH: 'month',
} as const;
export type TimeUnit = (typeof TimeUnit)[keyof typeof TimeUnit];

export const FilterOperator = {
  EQ: 'eq',
  NEQ: 'neq',
  LIKE: 'like',
  NLIKE: 'nlike',
} as const;
export type FilterOperator = (typeof FilterOperator)[keyof typeof FilterOperator];

/** The upstream spells sort directions like the schema does. */
export const SortDirection = {
  DESC: 'DESC',
  ASC: 'ASC',
} as const;
export type SortDirection = (typeof SortDirection)[keyof typeof SortDirection];

// The wire's names of the same values (what the upstream contract and the emulator call them).
export type MetricName = Metric;
export type TrafficDimensionName = (typeof TrafficDimension)[keyof typeof TrafficDimension];
export type ArticleDimensionName = (typeof ArticleDimension)[keyof typeof ArticleDimension];
export type DimensionName = Dimension;
export type FilterOperatorName = FilterOperator;
export type GranularityName = Granularity;
export type TimeUnitName = TimeUnit;
export type SortName = SortDirection;

export const METRIC_NAMES: readonly MetricName[] = Object.values(Metric);
export const TRAFFIC_DIMENSION_NAMES: readonly TrafficDimensionName[] = Object.values(TrafficDimension);
export const ARTICLE_DIMENSION_NAMES: readonly ArticleDimensionName[] = Object.values(ArticleDimension);
export const FILTER_OPERATORS: readonly FilterOperatorName[] = Object.values(FilterOperator);
export const GRANULARITY_NAMES: readonly GranularityName[] = Object.values(Granularity);
export const TIME_UNIT_NAMES: readonly TimeUnitName[] = Object.values(TimeUnit);
export const SORT_NAMES: readonly SortName[] = Object.values(SortDirection);

/** Dimensions with a small closed set of values, which only compare for (in)equality [docs]. */
export const EQUALITY_ONLY_DIMENSIONS: readonly DimensionName[] = [Dimension.DEVICE_TYPE, Dimension.USER_TYPE];
export const EQUALITY_OPERATORS: readonly FilterOperatorName[] = [FilterOperator.EQ, FilterOperator.NEQ];

export function isTrafficDimension(value: unknown): value is TrafficDimensionName {
  return (TRAFFIC_DIMENSION_NAMES as readonly unknown[]).includes(value);
}

/** The schema's name of an upstream enum value, for messages people read (e.g. 'pageViewsTotal' → PAGE_VIEWS_TOTAL). */
export function schemaName<M extends Readonly<Record<string, string>>>(map: M, value: M[keyof M]): string {
  return Object.keys(map).find((key) => map[key] === value) ?? value;
}
