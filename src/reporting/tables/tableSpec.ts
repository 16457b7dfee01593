import type { DateWindowInput } from '../dashboard/dashboardQueryInput';
import type { DashboardFilterWire, DashboardQueryBody, MetricName } from '../../kernel/wire';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection } from '../../../contract';
import type { ResolvedWindow } from '../dashboard/analyticsWindow';

const METRIC_ORDER: readonly MetricName[] = Object.values(Metric);

/** Metrics in the schema's order, so the same set always makes the same body (and the same cache key). */
export function canonicalMetrics(metrics: Iterable<MetricName>): MetricName[] {
  const wanted = new Set(metrics);
  return METRIC_ORDER.filter((metric) => wanted.has(metric));
}

/** What a table narrows the traffic to, besides its window. */
export interface TableFilters {
  domain?: string;
  section?: string;
}

/**
 * What one table answers: a window as the caller gave it (a relative one
 * keeps moving, so the table is refetched over the window of its own
 * instant), the filters, and the metric its rows are ranked by.
 */
export interface TableSpec {
  /** Identity of the table: equal specs share one table, its waiting asks and its demand. */
  key: string;
  window: DateWindowInput;
  filters: TableFilters;
  rank: MetricName;
}

export function tableSpec(window: DateWindowInput, filters: TableFilters, rank: MetricName): TableSpec {
  const canonical: DateWindowInput =
    window.last != null
      ? { last: { number: window.last.number, unit: window.last.unit } }
      : { range: { start: window.range?.start ?? '', end: window.range?.end ?? '' } };
  const clean: TableFilters = {};
  if (filters.domain !== undefined) clean.domain = filters.domain;
  if (filters.section !== undefined) clean.section = filters.section;
  return { key: JSON.stringify([canonical, clean.domain ?? null, clean.section ?? null, rank]), window: canonical, filters: clean, rank };
}

/**
 * The spec a key names (`tableSpec`'s), read back from what another replica shared (the slot it claimed for the
 * cluster), so that the replica that gets the slot can send that table's query. Undefined for anything `tableSpec`
 * would not make again byte for byte.
 */
export function specOfKey(key: string): TableSpec | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) return undefined;
  const [window, domain, section, rank] = parsed as unknown[];
  if (typeof window !== 'object' || window === null || !METRIC_ORDER.some((metric) => metric === rank)) return undefined;
  const filters: TableFilters = {};
  if (typeof domain === 'string') filters.domain = domain;
  if (typeof section === 'string') filters.section = section;
  const spec = tableSpec(window as DateWindowInput, filters, rank as MetricName);
  return spec.key === key ? spec : undefined;
}

function specFilters(spec: TableSpec): DashboardFilterWire[] {
  const filters: DashboardFilterWire[] = [];
  if (spec.filters.domain !== undefined) filters.push({ filter: Dimension.DOMAIN, op: FilterOperator.EQ, value: [spec.filters.domain] });
  if (spec.filters.section !== undefined) filters.push({ filter: Dimension.SECTION, op: FilterOperator.EQ, value: [spec.filters.section] });
  return filters;
}

/** The rank metric always rides along: the upstream orders only by a metric the query asks for. */
function bodyMetrics(spec: TableSpec, metrics: readonly MetricName[]): MetricName[] {
  return canonicalMetrics([spec.rank, ...metrics]);
}

/** The whole table: every article of the window, grouped by url, best first, as many rows as one query may carry. */
export function tableQuery(spec: TableSpec, window: ResolvedWindow, metrics: readonly MetricName[], maxRows: number): DashboardQueryBody {
  return {
    dates: window.dates,
    filters: specFilters(spec),
    groupBy: [Dimension.URL],
    metrics: bodyMetrics(spec, metrics),
    order: { metric: spec.rank, sort: SortDirection.DESC },
    granularity: Granularity.DAILY,
    limit: maxRows,
  };
}

/**
 * The articles a full table lacks: the same body narrowed to their urls (one
 * filter; its values are OR-ed, contract §2), one row each at most.
 */
export function narrowedQuery(
  spec: TableSpec,
  window: ResolvedWindow,
  urls: readonly string[],
  metrics: readonly MetricName[],
): DashboardQueryBody {
  if (urls.length === 0) throw new Error('narrowedQuery: needs at least one url');
  const sorted = [...new Set(urls)].sort();
  return {
    dates: window.dates,
    filters: [...specFilters(spec), { filter: Dimension.URL, op: FilterOperator.EQ, value: sorted }],
    groupBy: [Dimension.URL],
    metrics: bodyMetrics(spec, metrics),
    order: { metric: spec.rank, sort: SortDirection.DESC },
    granularity: Granularity.DAILY,
    limit: sorted.length,
  };
}
