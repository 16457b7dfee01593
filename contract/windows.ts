import { GRANULARITY_NAMES, type GranularityName, type TimeUnitName } from './names';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The length of each relative-window unit (a month is 30 days upstream). */
export const UNIT_MS: Readonly<Record<TimeUnitName, number>> = {
  minute: MINUTE_MS,
  hour: HOUR_MS,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
};

/** The longest window the upstream accepts (its 400 says "must not exceed 3660 days"). */
export const MAX_WINDOW_DAYS = 3660;
const MAX_WINDOW_MS = MAX_WINDOW_DAYS * DAY_MS;

/** The longest window each granularity serves: REALTIME up to 24 hours, HOURLY up to 31 days. */
const MAX_WINDOW_FOR: Readonly<Record<GranularityName, number>> = {
  realtime: DAY_MS,
  hourly: 31 * DAY_MS,
  daily: Number.POSITIVE_INFINITY,
};

/** A window's length (end minus start, in ms) is over the longest the upstream accepts. */
export function exceedsMaxWindow(lengthMs: number): boolean {
  return lengthMs > MAX_WINDOW_MS;
}

/** The granularities offered for a window of this length (end minus start, in ms), finest first. */
export function availableGranularities(lengthMs: number): GranularityName[] {
  return GRANULARITY_NAMES.filter((granularity) => lengthMs <= MAX_WINDOW_FOR[granularity]);
}
