import type { DateWindowInput } from './dashboardQueryInput';
import { validateDashboardQuery } from './validate';
import { windowLengthMs } from './windowLength';
import { rangeInstants } from '../../kernel/instants';
import type { DashboardQueryBody } from '../../kernel/wire';
import { Metric, TimeUnit } from '../../../contract';
import type { InvalidArgument } from './invalidArgument';

/**
 * `Article.analytics` and `Subscription.articleAnalytics`' window when none is given: the schema's default
 * argument (schema/*.graphql, which GraphQL applies to an omitted window; test/graphql/defaultWindow.test.ts
 * holds the two equal), and the one an explicit `window: null` gets.
 */
export const DEFAULT_ANALYTICS_WINDOW: DateWindowInput = { last: { number: 7, unit: TimeUnit.DAY } };

/** A window pinned to instants: what every article of one operation is measured over. */
export interface ResolvedWindow {
  /** Identity of the window within an operation (the upstream `dates` as JSON). */
  key: string;
  dates: DashboardQueryBody['dates'];
  /** First and last instant, epoch milliseconds; the upstream's windows are closed on both ends. */
  from: number;
  to: number;
}

/**
 * The dashboard query's own window rules (src/reporting/dashboard/validate.ts), reported
 * against `argument` (e.g. `window.last.number`) instead of `query.dates`.
 */
export function validateWindow(window: DateWindowInput, argument: string): InvalidArgument[] {
  const problems = validateDashboardQuery({ dates: window, metrics: [Metric.PAGE_VIEWS_TOTAL] });
  return problems
    .filter((problem) => problem.path === 'query.dates' || problem.path.startsWith('query.dates.'))
    .map((problem) => ({ ...problem, path: argument + problem.path.slice('query.dates'.length) }));
}

/**
 * A relative window becomes the absolute range ending at the operation's
 * instant, so every article of the operation is measured over the same
 * instants even if the upstream's queries run at different moments. A range
 * is sent as given: a date-only end means its whole day to the upstream.
 * Validate first.
 */
export function resolveWindow(window: DateWindowInput, operationInstant: number): ResolvedWindow {
  const length = windowLengthMs(window);
  if (window.last != null && length !== undefined) {
    const from = operationInstant - length;
    const dates = { range: { start: new Date(from).toISOString(), end: new Date(operationInstant).toISOString() } };
    return { key: JSON.stringify(dates), dates, from, to: operationInstant };
  }
  if (window.range != null) {
    const { start, end } = rangeInstants(window.range);
    if (start !== undefined && end !== undefined) {
      const dates = { range: { start: window.range.start, end: window.range.end } };
      return { key: JSON.stringify(dates), dates, from: start, to: end };
    }
  }
  throw new Error('resolveWindow: the window is not valid; validate it first');
}

/** The operation's instant, rounded down so that operations close in time ask identical questions (0: not rounded). */
export function alignInstant(instant: number, alignSeconds: number): number {
  if (alignSeconds <= 0) return instant;
  const step = alignSeconds * 1000;
  return Math.floor(instant / step) * step;
}
