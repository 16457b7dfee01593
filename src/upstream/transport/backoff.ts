export interface BackoffOptions {
  /** Retries after the first attempt. */
  retries: number;
  /** The first retry waits between half of this and all of it; each later one doubles. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** In [0, 1); Math.random by default, fixed in tests. */
  random?: () => number;
}

/**
 * "Equal jitter" exponential backoff: half of the exponential step is fixed,
 * half random, so retries from many callers after one upstream blip spread
 * out instead of arriving together, and none retries immediately.
 */
export function backoffDelayMs(retry: number, options: BackoffOptions): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return step / 2 + (options.random ?? Math.random)() * (step / 2);
}
