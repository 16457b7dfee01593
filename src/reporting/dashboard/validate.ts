import type { DashboardQueryInput } from './dashboardQueryInput';
import { Dimension, FilterOperator, Granularity, Metric, schemaName } from '../../../contract';
import type { InvalidArgument } from './invalidArgument';
import { availableGranularities, exceedsMaxWindow, MAX_WINDOW_DAYS, windowLengthMs } from './windowLength';
import { rangeInstants } from '../../kernel/instants';
import { EQUALITY_ONLY_DIMENSIONS, EQUALITY_OPERATORS, MAX_GROUP_BY, TRAFFIC_DIMENSION_NAMES } from '../../../contract';
import { UPSTREAM_CALL_DEFAULTS } from '../../config';

/**
 * REPORTING_MAX_ROWS's default. The contract allows `limit` up to 1000, but
 * public clients of the live API read at most about 500 rows per query [seen]
 * (the emulator's realistic profile cuts pages there): a larger limit would be
 * cut silently, so it is refused instead.
 */
const DEFAULT_MAX_ROWS = UPSTREAM_CALL_DEFAULTS.reportingMaxRows;

export interface DashboardLimits {
  /** Most rows one query may ask for (`limit`). */
  maxRows: number;
}

const TRAFFIC_DIMENSIONS: ReadonlySet<Dimension> = new Set(TRAFFIC_DIMENSION_NAMES);
const EQUALITY_ONLY: ReadonlySet<Dimension> = new Set(EQUALITY_ONLY_DIMENSIONS);
const EQUALITY: ReadonlySet<FilterOperator> = new Set(EQUALITY_OPERATORS);

/**
 * Every rule of the upstream's dashboard 400 that can be checked without its
 * data (docs/upstream-contract.md §2 and the emulator's exact limits), so an invalid query
 * costs no upstream call (no budget spent) and the caller learns all of its
 * problems at once. Paths start at the `query` argument. Window length and
 * granularity availability depend only on the window's length, never on the
 * upstream's clock, so they are checked here too.
 */
export function validateDashboardQuery(
  input: DashboardQueryInput,
  limits: DashboardLimits = { maxRows: DEFAULT_MAX_ROWS },
): InvalidArgument[] {
  const dateProblems = validateDates(input);
  return [
    ...dateProblems,
    ...(dateProblems.length === 0 ? validateWindowLength(input) : []),
    ...validateMetrics(input),
    ...validateGroupBy(input),
    ...validateFilters(input),
    ...validatePaging(input, limits.maxRows),
  ];
}

function validateDates({ dates }: DashboardQueryInput): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  const { last, range } = dates;
  if ((last == null) === (range == null)) {
    problems.push({ path: 'query.dates', message: 'give exactly one of last and range' });
  }
  if (last != null && last.number < 1) {
    problems.push({ path: 'query.dates.last.number', message: `must be at least 1 (got ${last.number})` });
  }
  if (range != null) {
    const { start, end } = rangeInstants(range);
    const expected = 'must be YYYY-MM-DD or an ISO-8601 date-time with a zone, e.g. 2026-11-20T08:00:00Z';
    if (start === undefined)
      problems.push({ path: 'query.dates.range.start', message: `${expected} (got ${JSON.stringify(range.start)})` });
    if (end === undefined) problems.push({ path: 'query.dates.range.end', message: `${expected} (got ${JSON.stringify(range.end)})` });
    if (start !== undefined && end !== undefined && start > end) {
      problems.push({ path: 'query.dates.range', message: `start (${range.start}) must not be after end (${range.end})` });
    }
  }
  return problems;
}

/** The upstream's longest window, then the granularities it offers for the window's length. Dates must be valid. */
function validateWindowLength({ dates, granularity }: DashboardQueryInput): InvalidArgument[] {
  const length = windowLengthMs(dates);
  if (length === undefined) return [];
  if (exceedsMaxWindow(length)) {
    const path = dates.last != null ? 'query.dates.last.number' : 'query.dates.range';
    return [{ path, message: `the window must not exceed ${MAX_WINDOW_DAYS} days` }];
  }
  const available = availableGranularities(length);
  if (granularity != null && !available.includes(granularity)) {
    const names = available.map((g) => schemaName(Granularity, g)).join(', ');
    return [
      {
        path: 'query.granularity',
        message: `${schemaName(Granularity, granularity)} is not available for this window (REALTIME up to 24 hours, HOURLY up to 31 days); available: ${names}`,
      },
    ];
  }
  return [];
}

function validateMetrics({ metrics, order }: DashboardQueryInput): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  if (metrics.length === 0) problems.push({ path: 'query.metrics', message: 'must name at least one metric' });
  const repeated = duplicates(metrics);
  if (repeated.length > 0) {
    problems.push({
      path: 'query.metrics',
      message: `must not repeat a metric (repeated: ${repeated.map((m) => schemaName(Metric, m)).join(', ')})`,
    });
  }
  if (order != null && metrics.length > 0 && !metrics.includes(order.metric)) {
    problems.push({
      path: 'query.order.metric',
      message: `must be one of the query's metrics (${metrics.map((m) => schemaName(Metric, m)).join(', ')}), got ${schemaName(Metric, order.metric)}`,
    });
  }
  return problems;
}

function validateGroupBy({ groupBy = [], metrics }: DashboardQueryInput): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  if (groupBy.length > MAX_GROUP_BY) {
    problems.push({ path: 'query.groupBy', message: `must have at most ${MAX_GROUP_BY} dimensions (got ${groupBy.length})` });
  }
  const repeated = duplicates(groupBy);
  if (repeated.length > 0) {
    problems.push({
      path: 'query.groupBy',
      message: `must not repeat a dimension (repeated: ${repeated.map((d) => schemaName(Dimension, d)).join(', ')})`,
    });
  }
  if (metrics.includes(Metric.NEW_ARTICLES)) {
    const traffic = groupBy.filter((dimension) => TRAFFIC_DIMENSIONS.has(dimension));
    if (traffic.length > 0) problems.push({ path: 'query.groupBy', message: newArticlesConflict(traffic) });
  }
  return problems;
}

function validateFilters({ filters = [], metrics }: DashboardQueryInput): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  const countsArticles = metrics.includes(Metric.NEW_ARTICLES);
  filters.forEach((filter, index) => {
    const at = `query.filters[${index}]`;
    if (filter.values.length === 0) problems.push({ path: `${at}.values`, message: 'must contain at least one value' });
    if (EQUALITY_ONLY.has(filter.dimension) && !EQUALITY.has(filter.operator)) {
      problems.push({
        path: `${at}.operator`,
        message: `${schemaName(Dimension, filter.dimension)} allows only EQ and NEQ (got ${schemaName(FilterOperator, filter.operator)})`,
      });
    }
    if (countsArticles && TRAFFIC_DIMENSIONS.has(filter.dimension)) {
      problems.push({ path: `${at}.dimension`, message: newArticlesConflict([filter.dimension]) });
    }
  });
  return problems;
}

function validatePaging({ limit, from }: DashboardQueryInput, maxRows: number): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  if (limit != null && (limit < 1 || limit > maxRows)) {
    problems.push({
      path: 'query.limit',
      message: `must be from 1 to ${maxRows}, the most rows one query may ask for (REPORTING_MAX_ROWS); page with from (got ${limit})`,
    });
  }
  if (from != null && from < 0) problems.push({ path: 'query.from', message: `must be 0 or more (got ${from})` });
  return problems;
}

function newArticlesConflict(traffic: readonly Dimension[]): string {
  const names = traffic.map((dimension) => schemaName(Dimension, dimension)).join(', ');
  return `NEW_ARTICLES cannot be combined with traffic dimensions (${names}); query it separately`;
}

function duplicates<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const repeated = new Set<T>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
}
