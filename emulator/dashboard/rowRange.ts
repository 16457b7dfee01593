import type { EmulatorStore } from '../store';
import type { TimeWindow } from './types';

/*
 * Page views are append-only, and both the generator and live ingestion
 * append them in time order. While that holds, the rows of a window are one
 * contiguous run found by binary search, so a last-hour query touches
 * thousands of rows instead of half a million. Whether it holds is checked
 * incrementally: only rows appended since the last query are looked at.
 */

const orderChecked = new WeakMap<EmulatorStore, { rows: number; sorted: boolean }>();

/**
 * Row indexes [from, to) that can hold views of the window (all rows when
 * times are out of order), and whether the rows are in time order.
 */
export function rowRangeFor(store: EmulatorStore, window: TimeWindow): { from: number; to: number; sorted: boolean } {
  const n = store.views.length;
  const time = store.views.time.data;
  let state = orderChecked.get(store);
  if (!state) orderChecked.set(store, (state = { rows: 0, sorted: true }));
  if (state.sorted) {
    for (let i = Math.max(1, state.rows); i < n; i++) {
      if (time[i] < time[i - 1]) {
        state.sorted = false;
        break;
      }
    }
  }
  state.rows = n;
  if (!state.sorted) return { from: 0, to: n, sorted: false };
  return {
    from: firstRowAtOrAfter(time, n, window.start, false),
    to: firstRowAtOrAfter(time, n, window.end, true),
    sorted: true,
  };
}

/** The first row whose time is >= bound (> bound when `strictly`). */
function firstRowAtOrAfter(time: Float64Array, n: number, bound: number, strictly: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid] < bound || (strictly && time[mid] === bound)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
