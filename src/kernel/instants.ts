/**
 * Strict readers of the two time formats this subgraph meets. Date.parse is
 * not used on its own because it rolls impossible dates over (2026-02-30
 * becomes March 2nd) and guesses a local zone for zone-less date-times.
 */

import { DAY_MS } from '../../contract';

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

/** The upstream's `yyyy-MM-dd HH:mm:ss`, always UTC (docs/upstream-contract.md §2 and §3). */
const UPSTREAM_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * Milliseconds since the epoch of an ISO-8601 `YYYY-MM-DD` (start of that day,
 * UTC) or date-time with a zone designator; undefined for anything else,
 * including a date-time without a zone, whose instant would be a guess.
 */
export function parseIsoInstant(text: string): number | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  if (hour !== undefined && zone === undefined) return undefined;
  const local = utcMillis(year, month, day, hour ?? '0', minute ?? '0', second ?? '0');
  if (local === undefined) return undefined;
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  return local + millis - zoneOffsetMillis(zone);
}

/** `toISOString`'s own form: what the subgraph's resolvers return (upstreamTimeToIso, dateTimeOf). */
const CANONICAL_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;

/**
 * Whether `text` is a valid instant already in `toISOString`'s form, so that
 * parsing it and printing it again would give it back: checked field by field,
 * without a Date (the DateTime scalar meets one per recommendation).
 */
export function isCanonicalInstant(text: string): boolean {
  const match = CANONICAL_INSTANT.exec(text);
  if (match === null) return false;
  const [, year, month, day, hour, minute, second] = match;
  return isValidUtc(Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second));
}

/** True for `YYYY-MM-DD` alone: such a range end means the whole day. */
function isDateOnly(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text);
}

/** The upstream's `yyyy-MM-dd HH:mm:ss` (UTC) as an ISO-8601 string; undefined when it is not one. */
export function upstreamTimeToIso(text: string): string | undefined {
  const match = UPSTREAM_TIME.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  // Assembled as text: once valid, the fields are already ISO's (4-digit year, 2-digit rest),
  // and this runs for every recommendation, where a Date per item showed in the profile.
  if (!isValidUtc(Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second))) return undefined;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}.000Z`;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The proleptic Gregorian calendar, as Date uses it. */
function isValidUtc(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}

/**
 * For values the datasource has already checked (findDashboardShapeProblem):
 * an unreadable one here is a bug in that check, not an upstream answer.
 */
export function checkedUpstreamTimeToIso(text: string): string {
  const iso = upstreamTimeToIso(text);
  if (iso === undefined) throw new Error(`checkedUpstreamTimeToIso: ${JSON.stringify(text.slice(0, 40))} was not checked at the boundary`);
  return iso;
}

function utcMillis(year: string, month: string, day: string, hour: string, minute: string, second: string): number | undefined {
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  // setUTCFullYear, unlike Date.UTC, takes years below 100 literally.
  const date = new Date(Date.UTC(2000, 0, 1, h, mi, s));
  date.setUTCFullYear(y, mo - 1, d);
  // An impossible day (February 30th) rolls into the next month; reject it instead.
  if (date.getUTCDate() !== d) return undefined;
  return date.getTime();
}

function zoneOffsetMillis(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5));
  return sign * (hours * 60 + minutes) * 60_000;
}

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
