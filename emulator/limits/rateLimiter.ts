import type { Clock } from '../clock';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  /** Emulator time of the last refill, epoch ms. */
  at: number;
}

/** Above this many keys, buckets that have refilled completely are forgotten. */
const PRUNE_THRESHOLD = 10_000;

/**
 * A per-key token bucket: `perMinute` requests at once, refilling at
 * `perMinute` per minute. It reads the emulator clock, so advancing the clock
 * refills it and tests never wait.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly perMinute: number,
  ) {
    if (!(Number.isInteger(perMinute) && perMinute >= 1)) {
      throw new RangeError(`a rate limit must be an integer >= 1 per minute, got ${perMinute}`);
    }
    this.refillPerMs = perMinute / 60_000;
  }

  take(key: string): RateDecision {
    const now = this.clock.now();
    const bucket = this.buckets.get(key) ?? this.newBucket(key, now);
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.refillPerMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    const waitMs = (1 - bucket.tokens) / this.refillPerMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  private newBucket(key: string, now: number): Bucket {
    if (this.buckets.size >= PRUNE_THRESHOLD) this.pruneFull(now);
    const bucket = { tokens: this.perMinute, at: now };
    this.buckets.set(key, bucket);
    return bucket;
  }

  private pruneFull(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.refillPerMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}
