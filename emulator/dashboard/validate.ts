import type { ParamError } from '../outcome';
import { isRecord } from '../validation/fields';
import type { Dimension } from '../store';
import { DEFAULT_LIMIT, MAX_GROUP_BY, MAX_LIMIT, MAX_WINDOW_DAYS, UNIT_MS, exceedsMaxWindow } from '../../contract';
import { availableGranularities, parseRangeBound } from './dates';
import {
  DIMENSIONS,
  EXACT_ONLY_DIMENSIONS,
  GRANULARITIES,
  METRICS,
  OPERATORS,
  SORTS,
  TIME_UNITS,
  isTrafficDimension,
  type DashboardFilter,
  type DashboardQuery,
  type Granularity,
  type Metric,
  type Sort,
  type TimeWindow,
} from './types';

/**
 * Checks an untrusted request body against docs/upstream-contract.md §2. Every
 * problem found is reported, each with the path of the offending field, so a
 * client can fix a request in one round trip. Unknown top-level fields are
 * ignored; `null` counts as absent for the optional ones.
 */
export function validateDashboardQuery(
  body: unknown,
  now: number,
): { ok: true; query: DashboardQuery } | { ok: false; errors: ParamError[] } {
  if (!isRecord(body)) {
    return { ok: false, errors: [{ path: 'body', message: 'must be a JSON object' }] };
  }
  const errors: ParamError[] = [];
  const report = (path: string, message: string) => errors.push({ path, message });

  const window = readWindow(body.dates, now, report);
  const filters = readFilters(body.filters, report);
  const groupBy = readGroupBy(body.groupBy, report);
  const metrics = readMetrics(body.metrics, report);
  const order = readOrder(body.order, metrics, report);
  checkNewArticlesDimensions(body, report);
  const granularities = window ? availableGranularities(window) : undefined;
  const granularity = readGranularity(body.granularity, granularities, report);
  const limit = readInteger(body.limit, 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT, report);
  const from = readInteger(body.from, 'from', 0, Number.MAX_SAFE_INTEGER, 0, report);

  if (errors.length > 0 || !window || !filters || !groupBy || !metrics || !order || !granularities) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    query: {
      window,
      filters,
      groupBy,
      metrics,
      order,
      granularity: granularity ?? granularities[0],
      availableGranularities: granularities,
      limit,
      from,
    },
  };
}

type Report = (path: string, message: string) => void;

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/** A value quoted for an error message, never long enough to flood a log. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function oneOf(values: readonly string[]): string {
  return `expected one of ${values.join(', ')}`;
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

function readWindow(dates: unknown, now: number, report: Report): TimeWindow | undefined {
  if (!isRecord(dates)) {
    report('dates', 'is required: an object with exactly one of last or range');
    return undefined;
  }
  const hasLast = !isAbsent(dates.last);
  const hasRange = !isAbsent(dates.range);
  if (hasLast === hasRange) {
    report('dates', `must have exactly one of last or range, got ${hasLast ? 'both' : 'neither'}`);
    return undefined;
  }
  return hasLast ? readLast(dates.last, now, report) : readRange(dates.range, report);
}

function readLast(last: unknown, now: number, report: Report): TimeWindow | undefined {
  if (!isRecord(last)) {
    report('dates.last', 'must be an object {number, dimension}');
    return undefined;
  }
  const { number, dimension } = last;
  const numberOk = Number.isSafeInteger(number) && (number as number) >= 1;
  if (!numberOk) report('dates.last.number', `must be an integer >= 1, got ${quote(number)}`);
  const unitOk = isOneOf(TIME_UNITS, dimension);
  if (!unitOk) report('dates.last.dimension', `${oneOf(TIME_UNITS)}, got ${quote(dimension)}`);
  if (!numberOk || !unitOk) return undefined;

  const length = (number as number) * UNIT_MS[dimension];
  if (exceedsMaxWindow(length)) {
    report('dates.last.number', `the window must not exceed ${MAX_WINDOW_DAYS} days`);
    return undefined;
  }
  return { start: now - length, end: now };
}

function readRange(range: unknown, report: Report): TimeWindow | undefined {
  if (!isRecord(range)) {
    report('dates.range', 'must be an object {start, end}');
    return undefined;
  }
  const start = readBound(range.start, 'start', report);
  const end = readBound(range.end, 'end', report);
  if (start === undefined || end === undefined) return undefined;
  if (start > end) {
    report('dates.range', `start (${quote(range.start)}) must not be after end (${quote(range.end)})`);
    return undefined;
  }
  if (exceedsMaxWindow(end - start)) {
    report('dates.range', `the window must not exceed ${MAX_WINDOW_DAYS} days`);
    return undefined;
  }
  return { start, end };
}

function readBound(value: unknown, bound: 'start' | 'end', report: Report): number | undefined {
  const time = typeof value === 'string' ? parseRangeBound(value, bound) : undefined;
  if (time === undefined) {
    report(`dates.range.${bound}`, `must be a date YYYY-MM-DD or an ISO-8601 date-time, got ${quote(value)}`);
  }
  return time;
}

function readArray(value: unknown, path: string, report: Report): unknown[] | undefined {
  if (!Array.isArray(value)) {
    report(path, 'is required: an array (it may be empty)');
    return undefined;
  }
  return value;
}

function readFilters(value: unknown, report: Report): DashboardFilter[] | undefined {
  const entries = readArray(value, 'filters', report);
  if (!entries) return undefined;
  const filters: DashboardFilter[] = [];
  let valid = true;
  entries.forEach((entry, i) => {
    const filter = readFilter(entry, `filters[${i}]`, report);
    if (filter) filters.push(filter);
    else valid = false;
  });
  return valid ? filters : undefined;
}

/** The filter keys of the contract [seen], and what the project's earlier key names are now called. */
const FILTER_KEYS = ['filter', 'op', 'value'] as const;
const RENAMED_FILTER_KEYS: Readonly<Record<string, string>> = { dimension: 'filter', operator: 'op', values: 'value' };

function readFilter(entry: unknown, path: string, report: Report): DashboardFilter | undefined {
  if (!isRecord(entry)) {
    report(path, 'must be an object {filter, op, value}');
    return undefined;
  }
  const { filter: dimension, op: operator, value: values } = entry;
  let valid = true;
  if (!isOneOf(DIMENSIONS, dimension)) {
    report(`${path}.filter`, `unknown dimension ${quote(dimension)}; ${oneOf(DIMENSIONS)}`);
    valid = false;
  }
  if (!isOneOf(OPERATORS, operator)) {
    report(`${path}.op`, `unknown operator ${quote(operator)}; ${oneOf(OPERATORS)}`);
    valid = false;
  } else if (isOneOf(EXACT_ONLY_DIMENSIONS, dimension) && (operator === 'like' || operator === 'nlike')) {
    report(`${path}.op`, `${dimension} accepts only eq or neq, got ${quote(operator)}`);
    valid = false;
  }
  if (!Array.isArray(values) || values.length === 0) {
    report(`${path}.value`, 'must be a non-empty array of strings or numbers');
    valid = false;
  } else {
    values.forEach((v, j) => {
      if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) {
        report(`${path}.value[${j}]`, `must be a string or a number, got ${quote(v)}`);
        valid = false;
      }
    });
  }
  // A misspelt key would otherwise be silently ignored, and the filter half applied.
  for (const key of Object.keys(entry)) {
    if ((FILTER_KEYS as readonly string[]).includes(key)) continue;
    const renamed = RENAMED_FILTER_KEYS[key];
    report(`${path}.${key}`, `unknown key ${quote(key)}; a filter is {filter, op, value}${renamed ? `: use ${quote(renamed)}` : ''}`);
    valid = false;
  }
  if (!valid) return undefined;
  return {
    dimension: dimension as Dimension,
    operator: operator as DashboardFilter['operator'],
    // Numbers and strings compare as text (contract §2).
    values: (values as (string | number)[]).map(String),
  };
}

function readGroupBy(value: unknown, report: Report): Dimension[] | undefined {
  const entries = readArray(value, 'groupBy', report);
  if (!entries) return undefined;
  let valid = true;
  if (entries.length > MAX_GROUP_BY) {
    report('groupBy', `at most ${MAX_GROUP_BY} dimensions, got ${entries.length}`);
    valid = false;
  }
  entries.forEach((d, i) => {
    if (!isOneOf(DIMENSIONS, d)) {
      report(`groupBy[${i}]`, `unknown dimension ${quote(d)}; ${oneOf(DIMENSIONS)}`);
      valid = false;
    } else if (entries.indexOf(d) < i) {
      report(`groupBy[${i}]`, `duplicate dimension ${quote(d)}`);
      valid = false;
    }
  });
  return valid ? (entries as Dimension[]) : undefined;
}

function readMetrics(value: unknown, report: Report): Metric[] | undefined {
  const entries = readArray(value, 'metrics', report);
  if (!entries) return undefined;
  let valid = true;
  if (entries.length === 0) {
    report('metrics', 'must name at least one metric');
    valid = false;
  }
  const duplicates = new Set<string>();
  entries.forEach((m, i) => {
    if (!isOneOf(METRICS, m)) {
      report(`metrics[${i}]`, `unknown metric ${quote(m)}; ${oneOf(METRICS)}`);
      valid = false;
    } else if (entries.indexOf(m) < i) {
      duplicates.add(m);
    }
  });
  if (duplicates.size > 0) {
    report('metrics', `duplicate metrics: ${[...duplicates].join(', ')}`);
    valid = false;
  }
  return valid ? (entries as Metric[]) : undefined;
}

function readOrder(value: unknown, metrics: Metric[] | undefined, report: Report): { metric: Metric; sort: Sort } | undefined {
  if (!isRecord(value)) {
    report('order', 'is required: an object {metric, sort}');
    return undefined;
  }
  const { metric, sort } = value;
  let valid = true;
  if (!isOneOf(SORTS, sort)) {
    report('order.sort', `${oneOf(SORTS)}, got ${quote(sort)}`);
    valid = false;
  }
  if (!isOneOf(METRICS, metric)) {
    report('order.metric', `unknown metric ${quote(metric)}; ${oneOf(METRICS)}`);
    valid = false;
  } else if (metrics && !metrics.includes(metric)) {
    report('order.metric', `must be one of the requested metrics (${metrics.join(', ')}), got ${quote(metric)}`);
    valid = false;
  }
  return valid ? { metric: metric as Metric, sort: sort as Sort } : undefined;
}

/** newArticles counts articles, which have no traffic dimensions [docs]. */
function checkNewArticlesDimensions(body: Record<string, unknown>, report: Report): void {
  if (!Array.isArray(body.metrics) || !body.metrics.includes('newArticles')) return;
  const message = (d: string) => `newArticles cannot be combined with the traffic dimension ${d}`;
  if (Array.isArray(body.groupBy)) {
    body.groupBy.forEach((d, i) => {
      if (isTrafficDimension(d)) report(`groupBy[${i}]`, message(d));
    });
  }
  if (Array.isArray(body.filters)) {
    body.filters.forEach((f, i) => {
      if (isRecord(f) && isTrafficDimension(f.filter)) report(`filters[${i}].filter`, message(f.filter));
    });
  }
}

function readGranularity(value: unknown, available: Granularity[] | undefined, report: Report): Granularity | undefined {
  if (isAbsent(value)) return undefined;
  if (!isOneOf(GRANULARITIES, value)) {
    report('granularity', `${oneOf(GRANULARITIES)}, got ${quote(value)}`);
    return undefined;
  }
  if (available && !available.includes(value)) {
    report('granularity', `${value} is not available for this window; available: ${available.join(', ')}`);
    return undefined;
  }
  return value;
}

function readInteger(value: unknown, path: string, min: number, max: number, fallback: number, report: Report): number {
  if (isAbsent(value)) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}`;
    report(path, `must be an integer ${range}, got ${quote(value)}`);
    return fallback;
  }
  return value as number;
}
