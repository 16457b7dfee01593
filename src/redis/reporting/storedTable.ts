import { METRIC_NAMES } from '../../../contract/names';
import type { MetricName } from '../../kernel/wire';
import { fieldsOf, isCount } from '../connection/readValue';
import type { Table } from '../../reporting/tables/table';

/** A Table as JSON in Redis: Maps and Sets as arrays. */
interface StoredTable {
  key: string;
  from: number;
  to: number;
  fetchedAt: number;
  metrics: MetricName[];
  rows: [string, Partial<Record<MetricName, number>>][];
  complete: boolean;
  urls: 'all' | string[];
}

/**
 * How far ahead of the reader's clock another replica's `fetchedAt` may be
 * (clock skew between replicas): such a time is read as now. Further ahead,
 * the entry is bad: served, it would stay fresh for years, dated in the future.
 */
export const MAX_CLOCK_SKEW_MS = 5_000;

const KNOWN_METRICS: ReadonlySet<string> = new Set(METRIC_NAMES);

export function storedTable(table: Table): string {
  const stored: StoredTable = {
    key: table.key,
    from: table.from,
    to: table.to,
    fetchedAt: table.fetchedAt,
    metrics: [...table.metrics],
    rows: [...table.rows.entries()].map(([url, values]) => [url, { ...values }]),
    complete: table.complete,
    urls: table.urls === 'all' ? 'all' : [...table.urls],
  };
  return JSON.stringify(stored);
}

/**
 * A stored table read back, checked as readValue.ts asks: the key it was
 * asked under, times that are finite and not negative (`fetchedAt` at most
 * MAX_CLOCK_SKEW_MS ahead, then read as now), known metrics, rows of counts
 * (finite, not negative) of those metrics only, and for a cold answer
 * (`url` given) the url it is kept under among the urls it speaks for.
 * Anything else: undefined (a bad entry).
 */
export function tableFromStored(parsed: unknown, expected: { key: string; url?: string }, nowMs: number): Table | undefined {
  const fields = fieldsOf(parsed);
  if (fields === undefined || fields.key !== expected.key) return undefined;
  const { from, to, fetchedAt, complete } = fields;
  if (!isCount(from) || !isCount(to) || from > to || !isCount(fetchedAt) || fetchedAt > nowMs + MAX_CLOCK_SKEW_MS) return undefined;
  if (typeof complete !== 'boolean') return undefined;
  const metrics = metricsOf(fields.metrics);
  const urls = urlsOf(fields.urls);
  if (metrics === undefined || urls === undefined) return undefined;
  if (expected.url !== undefined && (urls === 'all' || !urls.has(expected.url))) return undefined;
  const rows = rowsOf(fields.rows, new Set(metrics), urls);
  if (rows === undefined) return undefined;
  return { key: expected.key, from, to, fetchedAt: Math.min(fetchedAt, nowMs), metrics, rows, complete, urls };
}

function metricsOf(value: unknown): MetricName[] | undefined {
  if (!Array.isArray(value) || !value.every((metric) => typeof metric === 'string' && KNOWN_METRICS.has(metric))) return undefined;
  return value as MetricName[];
}

function urlsOf(value: unknown): 'all' | Set<string> | undefined {
  if (value === 'all') return 'all';
  if (!Array.isArray(value) || !value.every((url) => typeof url === 'string')) return undefined;
  return new Set(value as string[]);
}

/** url → metric → count; every metric one of the table's, every url one it speaks for. */
function rowsOf(value: unknown, metrics: ReadonlySet<MetricName>, urls: 'all' | ReadonlySet<string>): Table['rows'] | undefined {
  if (!Array.isArray(value)) return undefined;
  const rows = new Map<string, Partial<Record<MetricName, number>>>();
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    const [url, values] = entry as [unknown, unknown];
    const counts = fieldsOf(values);
    if (typeof url !== 'string' || counts === undefined || rows.has(url) || (urls !== 'all' && !urls.has(url))) return undefined;
    for (const [metric, count] of Object.entries(counts)) {
      if (!metrics.has(metric as MetricName) || !isCount(count)) return undefined;
    }
    rows.set(url, counts as Partial<Record<MetricName, number>>);
  }
  return rows;
}
