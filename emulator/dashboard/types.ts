import { ARTICLE_DIMENSIONS, TRAFFIC_DIMENSIONS, type Dimension, type TrafficDimension } from '../store';

/**
 * The dashboard query as the contract names it (docs/upstream-contract.md §2), and
 * the validated form the engine runs.
 */

export const METRICS = [
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
export type Metric = (typeof METRICS)[number];

export const DIMENSIONS: readonly Dimension[] = [...TRAFFIC_DIMENSIONS, ...ARTICLE_DIMENSIONS];

export function isTrafficDimension(value: unknown): value is TrafficDimension {
  return (TRAFFIC_DIMENSIONS as readonly unknown[]).includes(value);
}

export const OPERATORS = ['eq', 'neq', 'like', 'nlike'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Coarse-valued dimensions that only take exact operators [docs]. */
export const EXACT_ONLY_DIMENSIONS: readonly Dimension[] = ['deviceType', 'userType'];

/** Article dimensions an article can hold several values of. */
export const MULTI_VALUED_DIMENSIONS: readonly Dimension[] = ['section', 'author'];

/** Finest first: the default granularity is the first available one. */
export const GRANULARITIES = ['realtime', 'hourly', 'daily'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const TIME_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export const SORTS = ['DESC', 'ASC'] as const;
export type Sort = (typeof SORTS)[number];

export interface DashboardFilter {
  dimension: Dimension;
  operator: Operator;
  values: string[];
}

/** A window in epoch ms, both ends inclusive (see dates.ts for why). */
export interface TimeWindow {
  start: number;
  end: number;
}

/** A request that passed validation, with defaults filled in. */
export interface DashboardQuery {
  window: TimeWindow;
  filters: DashboardFilter[];
  groupBy: Dimension[];
  metrics: Metric[];
  order: { metric: Metric; sort: Sort };
  granularity: Granularity;
  availableGranularities: Granularity[];
  limit: number;
  from: number;
}

// ---- response (the wire shape of §2) ----------------------------------------

export interface DashboardItem {
  id: string;
  value: string;
  type: Dimension;
}

export interface DashboardRow {
  key: string;
  total: number;
  items: DashboardItem[];
}

export interface DashboardPoint {
  /** Bucket start, `yyyy-MM-dd HH:mm:ss` UTC. */
  key: string;
  value: number;
}

export interface DashboardMetricResult {
  metric: Metric;
  total: number;
  granularity: Granularity;
  availableGranularities: Granularity[];
  actualData: { values: DashboardRow[]; data: DashboardPoint[] };
}
