import type { DateWindowInput } from '../__generated__/resolvers-types';
import { validateDashboardQuery } from '../dashboard/validate';
import type { DashboardQueryBody, TimeUnitName } from '../datasources/wire';
import { Metric } from '../resolvers/enums';
import type { InvalidArgument } from '../resolvers/invalidArguments';
import { isDateOnly, parseIsoInstant } from '../scalars/instants';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Length of each relative unit; a month is 30 days, as the emulator counts it (contract §2 leaves it open). */
const UNIT_MS: Record<TimeUnitName, number> = {
  minute: MINUTE_MS,
  hour: 60 * MINUTE_MS,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
};

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
 * The dashboard query's own window rules (src/dashboard/validate.ts), reported
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
  if (window.last != null) {
    const from = operationInstant - window.last.number * UNIT_MS[window.last.unit];
    const dates = { range: { start: new Date(from).toISOString(), end: new Date(operationInstant).toISOString() } };
    return { key: JSON.stringify(dates), dates, from, to: operationInstant };
  }
  if (window.range != null) {
    const { start, end } = window.range;
    const from = parseIsoInstant(start);
    const endInstant = parseIsoInstant(end);
    if (from === undefined || endInstant === undefined) throw new Error('resolveWindow: the range is not valid; validate it first');
    const dates = { range: { start, end } };
    return { key: JSON.stringify(dates), dates, from, to: isDateOnly(end) ? endInstant + DAY_MS - 1 : endInstant };
  }
  throw new Error('resolveWindow: the window has neither last nor range; validate it first');
}

/** The operation's instant, rounded down so that operations close in time ask identical questions (0: not rounded). */
export function alignInstant(instant: number, alignSeconds: number): number {
  if (alignSeconds <= 0) return instant;
  const step = alignSeconds * 1000;
  return Math.floor(instant / step) * step;
}
