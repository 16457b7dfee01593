import type { DashboardMetricResultWire, MetricName } from '../../kernel/wire';
import { Dimension } from '../../../contract';

/**
 * One dashboard answer grouped by url, as the asks read it. `urls` says which
 * articles it speaks for: `all` for a table of the whole window, or the urls a
 * narrowed query was for.
 */
export interface Table {
  /** The TableSpec's key. */
  key: string;
  /** The window the numbers are really over (epoch ms): the table's own, never the ask's. */
  from: number;
  to: number;
  fetchedAt: number;
  metrics: readonly MetricName[];
  /** url → metric → the row's total, best first by the spec's rank metric. */
  rows: ReadonlyMap<string, Readonly<Partial<Record<MetricName, number>>>>;
  /** Fewer rows than asked for: every article of the window is here, a missing one had no traffic. */
  complete: boolean;
  urls: 'all' | ReadonlySet<string>;
}

export interface TableSource {
  key: string;
  from: number;
  to: number;
  fetchedAt: number;
  /** The most rows the answer can hold (the body's limit, at most REPORTING_MAX_ROWS): with this many it may have left articles out. */
  limit: number;
  /** The urls of a narrowed query; absent for a whole table. */
  urls?: readonly string[];
}

export function tabulate(results: readonly DashboardMetricResultWire[], source: TableSource): Table {
  const rows = new Map<string, Partial<Record<MetricName, number>>>();
  for (const result of results) {
    for (const row of result.actualData.values) {
      const url = row.items.find((item) => item.type === Dimension.URL)?.value;
      if (url === undefined) continue;
      let values = rows.get(url);
      if (values === undefined) {
        values = {};
        rows.set(url, values);
      }
      values[result.metric] = row.total;
    }
  }
  const rowCount = results[0]?.actualData.values.length ?? 0;
  const complete = rowCount < source.limit;
  return {
    key: source.key,
    from: source.from,
    to: source.to,
    fetchedAt: source.fetchedAt,
    metrics: results.map((result) => result.metric),
    rows,
    complete,
    // An answer cut by its limit speaks only for the articles it has rows of: one it left out is unknown, never 0.
    urls: source.urls === undefined ? 'all' : new Set(complete ? source.urls : source.urls.filter((url) => rows.has(url))),
  };
}

/**
 * One number of one article, or undefined when the table cannot say: the
 * metric is not in it, or the article is missing from a full table.
 */
export function readCell(table: Table, url: string, metric: MetricName): number | undefined {
  if (!table.metrics.includes(metric)) return undefined;
  const value = table.rows.get(url)?.[metric];
  if (value !== undefined) return value;
  const speaksFor = table.urls === 'all' ? table.complete : table.urls.has(url);
  // No row in an answer that speaks for the article: it had no traffic in the window.
  return speaksFor ? 0 : undefined;
}

/** The first rows of the ranking: the table is ordered by its rank metric already. */
export function topRows(table: Table, metric: MetricName, limit: number): { url: string; value: number }[] {
  return [...table.rows.entries()].slice(0, limit).map(([url, values]) => ({ url, value: values[metric] ?? 0 }));
}
