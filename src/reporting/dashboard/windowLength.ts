import type { DashboardQueryInput } from './dashboardQueryInput';
import { availableGranularities as granularitiesForLength, exceedsMaxWindow, MAX_WINDOW_DAYS, UNIT_MS } from '../../../contract';
import type { Granularity } from '../../../contract';
import { rangeInstants } from '../../kernel/instants';

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

export { exceedsMaxWindow, MAX_WINDOW_DAYS };

/** The granularities the upstream offers for a window of this length, finest first. */
export function availableGranularities(lengthMs: number): Granularity[] {
  return granularitiesForLength(lengthMs);
}
