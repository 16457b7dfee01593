import type { Fetched } from '../../kernel/fetched';
import { failurePolicyOf } from '../../kernel/failures/upstreamError';

/** How long an endpoint's answers are good for; a time to live of 0 turns its cache off. */
export interface FreshnessPolicy {
  ttlMs: number;
  /** How old an answer may be and still be served when the upstream fails. */
  staleIfErrorMs: number;
}

/**
 * - `fresh`: younger than its time to live: served as it is.
 * - `revalidate`: expired less than one more time to live ago: served at once
 *   while one background call refreshes it (stale-while-revalidate), so
 *   steady traffic never waits on the upstream.
 * - `expired`: older: the caller waits for a new answer (and gets this one
 *   only if that fails, see isServableOnError).
 */
export type Freshness = 'fresh' | 'revalidate' | 'expired';

export function freshnessOf(entry: Fetched<unknown>, policy: FreshnessPolicy, nowMs: number): Freshness {
  const ageMs = nowMs - entry.fetchedAt;
  if (ageMs < policy.ttlMs) return 'fresh';
  return ageMs < 2 * policy.ttlMs ? 'revalidate' : 'expired';
}

export function isServableOnError(entry: Fetched<unknown>, policy: FreshnessPolicy, nowMs: number): boolean {
  return nowMs - entry.fetchedAt <= policy.staleIfErrorMs;
}

/** How long a store keeps an entry: as long as any rule above may still serve it. */
export function keepMsOf(policy: FreshnessPolicy): number {
  return policy.ttlMs <= 0 ? 0 : Math.max(2 * policy.ttlMs, policy.staleIfErrorMs);
}

/** Failures an old answer may hide (the failure policy's `staleIfError` column, failures/policy.ts). */
export function isUpstreamOutage(error: unknown): boolean {
  return failurePolicyOf(error)?.staleIfError === true;
}
