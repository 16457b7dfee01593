import type { DashboardQueryInput } from '../../graphql/__generated__/resolvers-types';
import { Granularity, TimeUnit } from '../../graphql/enums';
import { isDateOnly, parseIsoInstant } from '../../graphql/scalars/instants';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The upstream's length of each relative-window unit (a month is 30 days there). */
const UNIT_MS: Record<TimeUnit, number> = {
  [TimeUnit.MINUTE]: MINUTE_MS,
  [TimeUnit.HOUR]: HOUR_MS,
  [TimeUnit.DAY]: DAY_MS,
  [TimeUnit.WEEK]: 7 * DAY_MS,
  [TimeUnit.MONTH]: 30 * DAY_MS,
};

/** The longest window the upstream accepts (its 400 says "must not exceed 3660 days"). */
export const MAX_WINDOW_DAYS = 3660;
const MAX_WINDOW_MS = MAX_WINDOW_DAYS * DAY_MS;

/** The longest window each granularity serves, finest first: the upstream's availability rule. */
const MAX_WINDOW_FOR: readonly (readonly [Granularity, number])[] = [
  [Granularity.REALTIME, DAY_MS],
  [Granularity.HOURLY, 31 * DAY_MS],
  [Granularity.DAILY, Number.POSITIVE_INFINITY],
];

/** A range's first and last instants (ms); a date-only end means the last millisecond of that day, as upstream. */
export interface RangeInstants {
  start: number | undefined;
  end: number | undefined;
}

export function rangeInstants(range: { start: string; end: string }): RangeInstants {
  const start = parseIsoInstant(range.start);
  const end = parseIsoInstant(range.end);
  return { start, end: end !== undefined && isDateOnly(range.end) ? end + DAY_MS - 1 : end };
}

/**
 * The window's length in milliseconds as the upstream measures it (end minus
 * start, both ends included), or undefined when the dates are not readable;
 * it does not depend on the clock, so it can be checked before any call.
 */
export function windowLengthMs({ last, range }: DashboardQueryInput['dates']): number | undefined {
  if (last != null && range == null) return last.number * UNIT_MS[last.unit];
  if (range != null && last == null) {
    const { start, end } = rangeInstants(range);
    return start === undefined || end === undefined ? undefined : end - start;
  }
  return undefined;
}

export function exceedsMaxWindow(lengthMs: number): boolean {
  return lengthMs > MAX_WINDOW_MS;
}

/** The granularities the upstream offers for a window of this length, finest first. */
export function availableGranularities(lengthMs: number): Granularity[] {
  return MAX_WINDOW_FOR.filter(([, longest]) => lengthMs <= longest).map(([granularity]) => granularity);
}
