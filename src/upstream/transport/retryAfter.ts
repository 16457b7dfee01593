/**
 * `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Returns whole seconds from `nowMs` within [0, `maxSeconds`]: a value beyond
 * the cap (an hour, 1e20, a date years away) is clamped to it, so one answer
 * can never pause a budget until restart; a date in the past means "now".
 * Undefined when absent or unparseable (a negative or fractional number is
 * not delay-seconds), so callers can tell "no hint" from "retry now": no hint
 * pauses nothing and reports no `retryAfter`.
 */
export function parseRetryAfter(header: string | string[] | undefined, nowMs: number, maxSeconds: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return clampSeconds(Number(value), maxSeconds);
  // Every HTTP-date form starts with a day name; Date.parse alone would accept "-5" or "1.5".
  const dateMs = /^[a-z]{3}/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(dateMs)) return undefined;
  return clampSeconds(Math.ceil((dateMs - nowMs) / 1000), maxSeconds);
}

/** Also used by the governor, so no pause (and no `retryAfter` it reports) exceeds the cap. */
export function clampSeconds(seconds: number, maxSeconds: number): number {
  if (Number.isNaN(seconds)) return maxSeconds;
  return Math.min(Math.max(0, seconds), maxSeconds);
}
