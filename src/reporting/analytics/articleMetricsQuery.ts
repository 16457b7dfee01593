import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../upstream/datasources/wire';
import { DEFAULT_MAX_ROWS } from '../dashboard/validate';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection } from '../../graphql/enums';
import type { ResolvedWindow } from './window';

const METRIC_ORDER: readonly MetricName[] = Object.values(Metric);

/** Metrics in the schema's order, so the same set always makes the same body (and the same cache key). */
export function canonicalMetrics(metrics: Iterable<MetricName>): MetricName[] {
  const wanted = new Set(metrics);
  return METRIC_ORDER.filter((metric) => wanted.has(metric));
}

/**
 * Sorted, then cut into chunks of at most `chunkSize` (ANALYTICS_CHUNK_SIZE)
 * and at most `maxRows` (REPORTING_MAX_ROWS): a chunk's query asks for one
 * row per URL, so a chunk larger than the rows cap would lose rows. The same
 * set of URLs always makes the same queries, whatever order the articles came in.
 */
export function chunkUrls(urls: Iterable<string>, chunkSize: number, maxRows: number = DEFAULT_MAX_ROWS): string[][] {
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkUrls: chunkSize must be an integer >= 1, got ${chunkSize}`);
  if (!Number.isInteger(maxRows) || maxRows < 1) throw new RangeError(`chunkUrls: maxRows must be an integer >= 1, got ${maxRows}`);
  const size = Math.min(chunkSize, maxRows);
  const sorted = [...new Set(urls)].sort();
  const chunks: string[][] = [];
  for (let start = 0; start < sorted.length; start += size) chunks.push(sorted.slice(start, start + size));
  return chunks;
}

/**
 * One dashboard query for many articles: every metric, one row per URL. The
 * limit is the URL count, so every article that had traffic fits in one page;
 * the daily series is the shortest one the upstream offers for any window.
 */
export function articleMetricsQuery(window: ResolvedWindow, urls: readonly string[], metrics: readonly MetricName[]): DashboardQueryBody {
  if (urls.length === 0 || metrics.length === 0) throw new Error('articleMetricsQuery: needs at least one url and one metric');
  return {
    dates: window.dates,
    filters: [{ filter: Dimension.URL, op: FilterOperator.EQ, value: [...urls] }],
    groupBy: [Dimension.URL],
    metrics: [...metrics],
    order: { metric: metrics[0], sort: SortDirection.DESC },
    granularity: Granularity.DAILY,
    limit: urls.length,
  };
}

/** metric → url → the URL's row total. A URL without a row had no traffic in the window. */
export type ArticleMetricTable = Map<MetricName, Map<string, number>>;

export function tabulateByUrl(results: readonly DashboardMetricResultWire[]): ArticleMetricTable {
  const table: ArticleMetricTable = new Map();
  for (const result of results) {
    const byUrl = new Map<string, number>();
    for (const row of result.actualData.values) {
      const url = row.items.find((item) => item.type === Dimension.URL)?.value;
      if (url !== undefined) byUrl.set(url, row.total);
    }
    table.set(result.metric, byUrl);
  }
  return table;
}
