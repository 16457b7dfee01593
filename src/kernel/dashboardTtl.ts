import { rangeInstants } from './instants';

/** A window that ended in the past cannot change any more: its answer keeps an hour (issue 6). */
export const PAST_WINDOW_TTL_SECONDS = 3600;

/** A window as the GraphQL input or the upstream body holds it: only a `range` can have ended. */
interface WindowDates {
  last?: unknown;
  range?: { start: string; end: string } | null;
}

/**
 * How long a dashboard answer stays fresh, for the answer cache and for the
 * cache hints alike: at least an hour when its window ended before `now`,
 * otherwise the configured TTL; a configured 0 turns caching off for every
 * window. Relative (`last`) windows always reach the present.
 */
export function dashboardTtlSeconds(dates: WindowDates, now: number, configuredTtlSeconds: number): number {
  if (configuredTtlSeconds === 0) return 0;
  return windowEndedBefore(dates, now) ? Math.max(PAST_WINDOW_TTL_SECONDS, configuredTtlSeconds) : configuredTtlSeconds;
}

function windowEndedBefore({ range }: WindowDates, now: number): boolean {
  if (range == null) return false;
  const { end } = rangeInstants(range);
  return end !== undefined && end < now;
}
