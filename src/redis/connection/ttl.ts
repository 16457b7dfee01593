/** No key the subgraph writes lives longer than this: a far date (a JWT `exp` of 1e20, clock skew) becomes this, never a `PX` Redis refuses. */
export const MAX_TTL_MS = 30 * 24 * 3_600_000;

/**
 * The one clamp for every time to live written to Redis: whole milliseconds
 * from 1 to MAX_TTL_MS, or undefined when there is nothing left to keep
 * (0, negative or not a number). Writers pass a duration computed on their
 * one injected clock (`untilMs - now()`), so every TTL shares that clock.
 */
export function ttlMs(durationMs: number): number | undefined {
  if (Number.isNaN(durationMs) || durationMs < 1) return undefined;
  return Math.min(MAX_TTL_MS, Math.floor(durationMs));
}

/** A time read back from Redis, bounded: at most `nowMs + maxAheadMs`, and undefined when it is not a finite number. */
export function clampTime(value: unknown, nowMs: number, maxAheadMs: number): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Math.min(value, nowMs + maxAheadMs);
}
