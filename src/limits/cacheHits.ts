import type { Fetched } from '../datasources/fetched';
import type { UpstreamBudget } from './upstreamBudget';

/**
 * An answer that arrived from the upstream before it was asked for came from
 * the shared answer cache (fresh or stale): it is counted as a cache hit in
 * the operation's budget (the operation log shows it) and costs no budget.
 * A call that joined an identical call in flight gets an answer fetched after
 * it asked, so it counts as a call.
 */
export function countingCacheHits<P, T>(
  fetch: (params: P) => Promise<Fetched<T>>,
  budget: UpstreamBudget,
  now: () => number = Date.now,
): (params: P) => Promise<Fetched<T>> {
  return async (params) => {
    const askedAt = now();
    const answer = await fetch(params);
    if (answer.fetchedAt < askedAt) budget.recordCacheHit();
    return answer;
  };
}
