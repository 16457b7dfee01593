import type { CacheOutcome, Served } from '../kernel/fetched';
import type { UpstreamAllowance } from './upstreamAllowance';

/**
 * Outcomes served from the answer cache without a call (fresh, or stale while
 * refreshing, or stale because the upstream failed). A call that joined an
 * identical call in flight waited for a real call, so it counts as one.
 */
const FROM_THE_CACHE: ReadonlySet<CacheOutcome> = new Set(['hit', 'stale', 'stale_if_error']);

/**
 * An answer the call path served from the answer cache is counted as a cache
 * hit in the operation's allowance (the operation log shows it) and costs no
 * allowance: the call path says so with the answer (`cache`).
 */
export function countingCacheHits<P, T>(
  fetch: (params: P) => Promise<Served<T>>,
  allowance: UpstreamAllowance,
): (params: P) => Promise<Served<T>> {
  return async (params) => {
    const answer = await fetch(params);
    if (servedFromCache(answer)) allowance.recordCacheHit();
    return answer;
  };
}

/** Whether the call path served this answer without a call of its own. */
export function servedFromCache(answer: Pick<Served<unknown>, 'cache'>): boolean {
  return FROM_THE_CACHE.has(answer.cache);
}
