import { availableGranularities as granularitiesForLength } from '../../contract';
import type { Granularity, TimeWindow } from './types';

/*
 * Windows are closed on both ends: [start, end]. `last` ends at `now`, and a
 * page view ingested at the current emulator time must be counted by a query
 * made at that same instant, which an open end would miss. A `YYYY-MM-DD` end
 * therefore means the last millisecond of that day. Buckets follow: the
 * series runs from the bucket holding `start` to the bucket holding `end`.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const BUCKET_MS: Record<Granularity, number> = {
  realtime: 5 * MINUTE,
  hourly: HOUR,
  daily: DAY,
};

/** Available granularities for the window, finest first (the contract's rule, on the window's length). */
export function availableGranularities(window: TimeWindow): Granularity[] {
  return granularitiesForLength(window.end - window.start);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Epoch ms of a range bound, or undefined when it is not a real date.
 * `YYYY-MM-DD` is the start of that UTC day, or for an end its last
 * millisecond; a date-time is taken as given, UTC when it has no offset.
 */
export function parseRangeBound(text: string, bound: 'start' | 'end'): number | undefined {
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    const [y, m, d] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    if (!isCalendarDate(y, m, d)) return undefined;
    const dayStart = Date.UTC(y, m - 1, d);
    return bound === 'start' ? dayStart : dayStart + DAY - 1;
  }
  const full = DATE_TIME.exec(text);
  if (!full) return undefined;
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(full[i]));
  const s = full[6] === undefined ? 0 : Number(full[6]);
  const ms = full[7] === undefined ? 0 : Number(full[7].slice(0, 3).padEnd(3, '0'));
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  const offset = parseOffset(full[8]);
  if (offset === undefined) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms) - offset;
}

function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  // Day 0 of the next month is the last day of this one.
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Offset east of UTC in ms; undefined when out of range. */
function parseOffset(text: string | undefined): number | undefined {
  if (text === undefined || text.toUpperCase() === 'Z') return 0;
  const sign = text[0] === '-' ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * HOUR + minutes * MINUTE);
}

/** Buckets are aligned to UTC boundaries: epoch 0 is a UTC midnight and UTC has no DST. */
export function bucketFloor(time: number, step: number): number {
  return Math.floor(time / step) * step;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `yyyy-MM-dd HH:mm:ss` in UTC, the contract's wire timestamp. */
export function formatWireTime(time: number): string {
  const d = new Date(time);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}
