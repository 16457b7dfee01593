/**
 * A dashboard query as a caller asks it, in reporting's own terms: the
 * GraphQL inputs of the same name (src/graphql/__generated__/) are
 * assignable to these, so the resolvers hand their arguments down unchanged
 * and nothing below graphql/ depends on the generated types.
 */
import type { Dimension, FilterOperator, Granularity, Metric, SortDirection, TimeUnit } from '../../../contract';

/** A window ending now, e.g. the last 7 days. */
export interface RelativeWindowInput {
  number: number;
  unit: TimeUnit;
}

/** A fixed window: `YYYY-MM-DD` or ISO-8601 date-times (a date-only end is the whole day). */
export interface DateRangeInput {
  start: string;
  end: string;
}

/** Exactly one of `last` and `range` (validated, not typed: a caller may send both or neither). */
export interface DateWindowInput {
  last?: RelativeWindowInput | null;
  range?: DateRangeInput | null;
}

export interface DashboardFilterInput {
  dimension: Dimension;
  operator: FilterOperator;
  values: string[];
}

export interface DashboardQueryInput {
  dates: DateWindowInput;
  filters?: DashboardFilterInput[];
  from?: number | null;
  granularity?: Granularity | null;
  groupBy?: Dimension[];
  limit?: number | null;
  metrics: Metric[];
  order?: { metric: Metric; sort: SortDirection } | null;
}
