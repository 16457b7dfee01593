import type { DashboardQueryBody } from '../datasources/wire';

/** A window that ended in the past cannot change any more; an hour bounds what a late correction upstream costs. */
export const CLOSED_WINDOW_TTL_MS = 3_600_000;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The time to live of a dashboard answer: `ttlSeconds` for windows that reach
 * the present (relative ones always do), an hour for a range that ended
 * before `nowMs`, and 0 (no caching at all) when `ttlSeconds` is 0.
 */
export function dashboardTtlMs(body: DashboardQueryBody, ttlSeconds: number, nowMs: number): number {
  if (ttlSeconds <= 0) return 0;
  if ('range' in body.dates) {
    const endMs = rangeEndMs(body.dates.range.end);
    if (endMs !== undefined && endMs <= nowMs) return Math.max(CLOSED_WINDOW_TTL_MS, ttlSeconds * 1000);
  }
  return ttlSeconds * 1000;
}

/** A date-only end includes its whole day (contract §2): the window ends at the next midnight UTC. */
function rangeEndMs(end: string): number | undefined {
  const dateOnly = DATE_ONLY.exec(end);
  const endMs = dateOnly ? Date.UTC(Number(dateOnly[1]), Number(dateOnly[2]) - 1, Number(dateOnly[3]) + 1) : Date.parse(end);
  return Number.isNaN(endMs) ? undefined : endMs;
}
