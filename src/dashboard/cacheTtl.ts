import type { DashboardQueryInput } from '../__generated__/resolvers-types';
import { rangeInstants } from './window';

/** A window that ended in the past cannot change any more: its answer keeps an hour (issue 6). */
export const PAST_WINDOW_TTL_SECONDS = 3600;

/**
 * How long a dashboard answer stays fresh: an hour when its window ended
 * before `now`, otherwise the configured TTL; a configured 0 turns caching off
 * for every window. Relative (`last`) windows always reach the present.
 */
export function dashboardTtlSeconds(dates: DashboardQueryInput['dates'], now: number, configuredTtlSeconds: number): number {
  if (configuredTtlSeconds === 0) return 0;
  return windowEndedBefore(dates, now) ? PAST_WINDOW_TTL_SECONDS : configuredTtlSeconds;
}

function windowEndedBefore({ range }: DashboardQueryInput['dates'], now: number): boolean {
  if (range == null) return false;
  const { end } = rangeInstants(range);
  return end !== undefined && end < now;
}
