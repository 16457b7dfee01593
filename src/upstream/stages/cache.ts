import type { Fetched, Served } from '../../kernel/fetched';
import type { AnswerStore } from '../stores/answerStore';
import { freshnessOf, isServableOnError, isUpstreamOutage } from './freshness';
import type { FreshnessPolicy } from './freshness';
import type { Next, Stage, UpstreamCall } from './stage';

export interface CacheStageOptions<I, T> {
  store: AnswerStore;
  /** Checks what a (possibly shared, possibly older) store hands back before it is served. */
  isAnswer: (value: unknown, input: I) => value is T;
  now: () => number;
}

/**
 * The answer cache, read side: a fresh answer is served as it is; an answer
 * past its time to live but within one more is served at once while one
 * background call refreshes it (stale-while-revalidate); an older one is
 * served only when the upstream fails (stale-if-error). The fill stage
 * writes what the upstream answers.
 */
export function cacheStage<I, T>(options: CacheStageOptions<I, T>): Stage<I, T> {
  const readEntry = entryReader(options);

  return (next) => (call) =>
    // No answer kept (a TTL of 0): nothing to read or fall back on, so no layer of its own on the call's way.
    call.policy.ttlMs > 0 ? cachedCall(next, call) : next({ ...call, absent: true });

  async function cachedCall(next: Next<I, T>, call: UpstreamCall<I>): Promise<Served<T>> {
    const cached = await readEntry(call.key, call.input);
    if (cached !== undefined) {
      const freshness = freshnessOf(cached, call.policy, options.now());
      if (freshness === 'fresh') return served(cached, 'hit');
      if (freshness === 'revalidate') {
        // One refresh at a time per key (the coalescing stage); its failure leaves the stale answer in place for the next caller.
        next({ ...call, background: true }).catch(() => undefined);
        return served(cached, 'stale');
      }
    }
    try {
      return await next({ ...call, absent: cached === undefined });
    } catch (error) {
      if (cached === undefined || !isUpstreamOutage(error) || !isServableOnError(cached, call.policy, options.now())) throw error;
      return served(cached, 'stale_if_error');
    }
  }
}

/**
 * The answer cache, read only (`peek`): the answer the cache stage would
 * serve without a call below it (fresh: `hit`; within stale-while-revalidate:
 * `stale`, but no background refresh is started), else undefined. It never
 * calls the upstream and never claims a fill: the budget queue reads it
 * before it holds a dashboard back or refuses it, so an answer that costs
 * nothing is never delayed or refused for want of a slot.
 */
export function cachedAnswer<I, T>(
  options: CacheStageOptions<I, T>,
): (key: string, input: I, policy: FreshnessPolicy) => Promise<Served<T> | undefined> {
  const readEntry = entryReader(options);
  return async (key, input, policy) => {
    const cached = policy.ttlMs > 0 ? await readEntry(key, input) : undefined;
    if (cached === undefined) return undefined;
    const freshness = freshnessOf(cached, policy, options.now());
    if (freshness === 'fresh') return served(cached, 'hit');
    return freshness === 'revalidate' ? served(cached, 'stale') : undefined;
  };
}

function entryReader<I, T>(options: CacheStageOptions<I, T>): (key: string, input: I) => Promise<Fetched<T> | undefined> {
  return async (key, input) => {
    const entry = await options.store.get(key);
    if (entry === undefined || typeof entry.fetchedAt !== 'number' || !options.isAnswer(entry.value, input)) return undefined;
    return { value: entry.value, fetchedAt: entry.fetchedAt };
  };
}

function served<T>(entry: Fetched<T>, cache: Served<T>['cache']): Served<T> {
  return { ...entry, cache };
}
