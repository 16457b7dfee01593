import {
  EQUALITY_ONLY_DIMENSIONS,
  FILTER_OPERATORS,
  GRANULARITY_NAMES,
  METRIC_NAMES,
  SORT_NAMES,
  TIME_UNIT_NAMES,
  isTrafficDimension,
  type FilterOperatorName,
  type GranularityName,
  type MetricName,
  type SortName,
} from '../../contract';
import { ARTICLE_DIMENSIONS, TRAFFIC_DIMENSIONS, type Dimension } from '../store';

/**
 * The dashboard query as the contract names it (docs/upstream-contract.md §2), and
 * the validated form the engine runs.
 */

export const METRICS = METRIC_NAMES;
export type Metric = MetricName;

export const DIMENSIONS: readonly Dimension[] = [...TRAFFIC_DIMENSIONS, ...ARTICLE_DIMENSIONS];

export { isTrafficDimension };

export const OPERATORS = FILTER_OPERATORS;
export type Operator = FilterOperatorName;

/** Coarse-valued dimensions that only take exact operators [docs]. */
export const EXACT_ONLY_DIMENSIONS: readonly Dimension[] = EQUALITY_ONLY_DIMENSIONS;

/** Article dimensions an article can hold several values of. */
export const MULTI_VALUED_DIMENSIONS: readonly Dimension[] = ['section', 'author'];

/** Finest first: the default granularity is the first available one. */
export const GRANULARITIES = GRANULARITY_NAMES;
export type Granularity = GranularityName;

export const TIME_UNITS = TIME_UNIT_NAMES;

export const SORTS = SORT_NAMES;
export type Sort = SortName;

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
