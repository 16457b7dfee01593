/**
 * The one place GraphQL enum values meet the upstream's names. codegen.yml
 * points `enumValues` here, so the generated types of arguments and parents
 * ARE the upstream names (e.g. `Metric` = 'pageViewsTotal' | ...) and wire
 * payloads flow through unchanged; the same objects are the runtime enum
 * resolver maps that make Apollo translate both ways. No string munging
 * anywhere else.
 */
import type { DimensionName, GranularityName, MetricName, OperatorName, SortName, TimeUnitName } from '../upstream/datasources/wire';

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

export const Dimension = {
  SOURCE: 'source',
  SOURCE_INTERNAL: 'sourceInternal',
  MEDIUM: 'medium',
  MEDIUM_INTERNAL: 'mediumInternal',
  CAMPAIGN: 'campaign',
  CAMPAIGN_INTERNAL: 'campaignInternal',
  DEVICE_TYPE: 'deviceType',
  USER_TYPE: 'userType',
  URL: 'url',
  TITLE: 'title',
  SECTION: 'section',
  AUTHOR: 'author',
  DOMAIN: 'domain',
} as const;
export type Dimension = (typeof Dimension)[keyof typeof Dimension];

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
  ASC: 'ASC',
  DESC: 'DESC',
} as const;
export type SortDirection = (typeof SortDirection)[keyof typeof SortDirection];

// Compile-time proof that each map has exactly the upstream's names as values:
// adding a name to wire.ts without mapping it here fails the type-check. That
// the keys are exactly the schema's values is proved where the maps become
// resolvers (src/graphql/resolvers/index.ts), so this file needs no generated types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** @public Exported only so noUnusedLocals accepts a type that exists to be checked. */
export type EnumMapsMatchTheWire = [
  Assert<Same<Metric, MetricName>>,
  Assert<Same<Dimension, DimensionName>>,
  Assert<Same<Granularity, GranularityName>>,
  Assert<Same<TimeUnit, TimeUnitName>>,
  Assert<Same<FilterOperator, OperatorName>>,
  Assert<Same<SortDirection, SortName>>,
];

/** The schema's name of an upstream enum value, for messages people read (e.g. 'pageViewsTotal' → PAGE_VIEWS_TOTAL). */
export function schemaName<M extends Readonly<Record<string, string>>>(map: M, value: M[keyof M]): string {
  return Object.keys(map).find((key) => map[key] === value) ?? value;
}
