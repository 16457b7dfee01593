/**
 * The span a rate's `perMinute` requests are spread over: a minute and 5%.
 * The vendor still answers 429 to a query sent exactly 60 s after the last
 * one [seen] (its clock and our latency are not ours to know), so grants keep
 * just behind its refill: 1 a minute becomes one every 63 s, 600 a minute one
 * every 105 ms after the burst. Both stores use it, so they stay the same bucket.
 */
export const RATE_WINDOW_MS = 63_000;

/** A reservation in a budget: granted after `waitMs`, or refused because it would wait longer than allowed. */
export type Reservation = { granted: true; waitMs: number } | { granted: false; retryAfterMs: number };

/**
 * Where the governor's token buckets live: in this process by default; a
 * shared store (Redis) lets replicas spend one account's budget together.
 * Each method is one atomic step on one bucket, so a Redis implementation
 * is a short script per method.
 */
export interface RateStore {
  /**
   * Takes one request from the bucket `key` (a burst of `perMinute`, refilling
   * evenly) at `nowMs`. When the request could only be sent more than
   * `maxWaitMs` from now, nothing is taken and the reservation is refused.
   * A `maxWaitMs` below 0 is a look: always refused, nothing taken, its
   * `retryAfterMs` the wait until the next place (0: free now).
   */
  reserve(key: string, perMinute: number, nowMs: number, maxWaitMs: number): Promise<Reservation>;
  /** Empties the bucket `key` until `untilMs` (the upstream said 429), then lets it refill evenly. */
  pause(key: string, perMinute: number, untilMs: number): Promise<void>;
  /** A shared store keeps an eye on the bucket `key` from now on, so that cut off it still knows what the others spent. */
  watch?(key: string, perMinute: number): void;
  /**
   * A shared store tells `listener` each time it spends from the shared
   * bucket again after spending from its local share (Redis came back).
   * Returns the unsubscribe.
   */
  onSharedAgain?(listener: () => void): () => void;
  /** A shared store stops watching its buckets (the process is closing). */
  close?(): void;
}

/**
 * The in-process RateStore. A token bucket kept as one number per key, its
 * "theoretical arrival time" (GCRA): the instant the bucket would be full
 * again. Reserving moves it one interval on; a request may go once it is at
 * most a full burst ahead of now. Hand-written because it is a dozen lines
 * and must run on an injected clock with a wait known before queueing (so a
 * caller that would wait too long is refused at once); see docs/budget.md.
 */
export class MemoryRateStore implements RateStore {
  private readonly fullAt = new Map<string, number>();

  async reserve(key: string, perMinute: number, nowMs: number, maxWaitMs: number): Promise<Reservation> {
    const intervalMs = RATE_WINDOW_MS / perMinute;
    const next = Math.max(this.fullAt.get(key) ?? nowMs, nowMs) + intervalMs;
    // A share below one a minute (a split budget, src/redis/upstream/redisRateStore.ts) still lets one request go, then one per interval.
    const burst = Math.max(1, perMinute);
    const waitMs = Math.max(0, next - burst * intervalMs - nowMs);
    if (waitMs > maxWaitMs) return { granted: false, retryAfterMs: waitMs };
    this.fullAt.set(key, next);
    return { granted: true, waitMs };
  }

  async pause(key: string, perMinute: number, untilMs: number): Promise<void> {
    const intervalMs = RATE_WINDOW_MS / perMinute;
    // Empty at `untilMs`: the first request goes then, the next ones one interval apart.
    const emptyUntil = untilMs + (perMinute - 1) * intervalMs;
    this.fullAt.set(key, Math.max(this.fullAt.get(key) ?? 0, emptyUntil));
  }
}
