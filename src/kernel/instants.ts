/**
 * Strict readers of the two time formats this subgraph meets. Date.parse is
 * not used on its own because it rolls impossible dates over (2026-02-30
 * becomes March 2nd) and guesses a local zone for zone-less date-times.
 */

import { DAY_MS } from '../../contract';

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

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

/**
 * Whether `text` is a valid instant already in `toISOString`'s form
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`), so that parsing it and printing it again would
 * give it back: read character by character, without a Date, a match array or
 * substrings (the DateTime scalar meets one per recommendation, on the raw
 * path's profile).
 */
export function isCanonicalInstant(text: string): boolean {
  if (text.length !== 24 || !hasSeparators(text, '-', 'T') || text[19] !== '.' || text[23] !== 'Z' || digitsAt(text, 20, 3) < 0) {
    return false;
  }
  return isValidDateTimeAt(text);
}

/** `YYYY-MM-DD?HH:mm:ss` at the start of `text`: its separators (`dateTime` between date and time). */
function hasSeparators(text: string, date: string, dateTime: string): boolean {
  return text[4] === date && text[7] === date && text[10] === dateTime && text[13] === ':' && text[16] === ':';
}

/** Whether the `YYYY-MM-DD?HH:mm:ss` at the start of `text` has digits where digits go and names a real UTC instant. */
function isValidDateTimeAt(text: string): boolean {
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  // A field with a non-digit reads -1; isValidUtc alone would let a -1 hour, minute, second or year through.
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return false;
  return isValidUtc(year, month, day, hour, minute, second);
}

/** The number the `count` ASCII digits at `start` write, or -1 when any of them is no digit. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let index = start; index < start + count; index++) {
    const digit = text.charCodeAt(index) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** True for `YYYY-MM-DD` alone: such a range end means the whole day. */
function isDateOnly(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text);
}

/** The upstream's `yyyy-MM-dd HH:mm:ss` (UTC) as an ISO-8601 string; undefined when it is not one. */
export function upstreamTimeToIso(text: string): string | undefined {
  // Read character by character and assembled as text: once valid, the fields are already ISO's (4-digit year,
  // 2-digit rest), and this runs for every recommendation, where a Date (then a regex match) per item showed in the profile.
  if (text.length !== 19 || !hasSeparators(text, '-', ' ')) return undefined;
  if (!isValidDateTimeAt(text)) return undefined;
  return `${text.slice(0, 10)}T${text.slice(11)}.000Z`;
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
