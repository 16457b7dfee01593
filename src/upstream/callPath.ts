import type { Fetched } from '../datasources/fetched';
import type { UpstreamService } from '../http/upstreamError';
import type { AnswerStore } from './answerStore';
import type { Breaker } from './breaker';
import { Coalescer } from './coalescer';
import type { UpstreamEvent, UpstreamEventSink } from './events';
import { freshnessOf, isServableOnError, isUpstreamOutage, keepMsOf, type FreshnessPolicy } from './freshness';

export interface ProtectedEndpointOptions<I, T> {
  service: UpstreamService;
  endpoint: string;
  /** Everything that changes the answer (see keys.ts). */
  keyOf: (input: I) => string;
  /** Time to live and stale-if-error window of this input's answer, at `nowMs`. */
  policyOf: (input: I, nowMs: number) => FreshnessPolicy;
  /** Checks what a (possibly shared, possibly older) store hands back before it is served. */
  isAnswer: (value: unknown, input: I) => value is T;
  store: AnswerStore;
  breaker: Breaker;
  /** The datasource call; its requests go through the governor (see governedHttpClient.ts). */
  fetch: (input: I) => Promise<Fetched<T>>;
  now: () => number;
  onEvent: UpstreamEventSink;
}

/**
 * One upstream endpoint with its protection, composed once at start-up:
 * answer cache (fresh, stale-while-revalidate, stale-if-error) → coalescing
 * of identical calls in flight → circuit breaker → the fetch, whose HTTP
 * requests the governor paces. Callers still receive `Fetched<T>`, so an
 * answer's age is visible to them.
 */
export function protectEndpoint<I, T>(options: ProtectedEndpointOptions<I, T>): (input: I) => Promise<Fetched<T>> {
  const coalescer = new Coalescer<Fetched<T>>();
  const emit = (outcome: Extract<UpstreamEvent, { type: 'cache' }>['outcome']) =>
    options.onEvent({ type: 'cache', outcome, service: options.service, endpoint: options.endpoint });

  const callUpstream = (key: string, input: I, policy: FreshnessPolicy): Promise<Fetched<T>> =>
    coalescer.run(key, async () => {
      const fetched = await options.breaker.execute(() => options.fetch(input));
      if (policy.ttlMs > 0) await options.store.set(key, fetched, keepMsOf(policy));
      return fetched;
    });

  const readEntry = async (key: string, input: I): Promise<Fetched<T> | undefined> => {
    const entry = await options.store.get(key);
    if (entry === undefined || typeof entry.fetchedAt !== 'number' || !options.isAnswer(entry.value, input)) return undefined;
    return { value: entry.value, fetchedAt: entry.fetchedAt };
  };

  return async (input) => {
    const key = options.keyOf(input);
    const policy = options.policyOf(input, options.now());
    const cached = policy.ttlMs > 0 ? await readEntry(key, input) : undefined;
    if (cached !== undefined) {
      const freshness = freshnessOf(cached, policy, options.now());
      if (freshness === 'fresh') {
        emit('hit');
        return cached;
      }
      if (freshness === 'revalidate') {
        emit('stale');
        // One refresh at a time per key; its failure leaves the stale answer in place for the next caller.
        if (!coalescer.has(key)) callUpstream(key, input, policy).catch(() => undefined);
        return cached;
      }
    }
    emit(coalescer.has(key) ? 'coalesced' : 'miss');
    try {
      return await callUpstream(key, input, policy);
    } catch (error) {
      if (cached === undefined || !isUpstreamOutage(error) || !isServableOnError(cached, policy, options.now())) throw error;
      emit('stale_if_error');
      return cached;
    }
  };
}
