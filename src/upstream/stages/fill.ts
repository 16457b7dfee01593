import type { AnswerStore } from '../stores/answerStore';
import { keepMsOf } from './freshness';
import type { Served } from '../../kernel/fetched';
import type { Next, Stage, UpstreamCall } from './stage';

export interface FillStageOptions<I, T> {
  store: AnswerStore;
  /** Checks an answer another filler stored before it is served. */
  isAnswer: (value: unknown, input: I) => value is T;
}

/**
 * The answer cache, write side, once per call this process makes: on a
 * miss it claims the key, so that other replicas sharing the store wait for
 * this answer instead of asking the upstream too (or this replica waits for
 * theirs: `coalesced`). The answer is stored for as long as any freshness
 * rule may serve it; a failed call releases the claim at once, so the
 * waiters fetch for themselves instead of waiting for the claim to lapse.
 */
export function fillStage<I, T>(options: FillStageOptions<I, T>): Stage<I, T> {
  // No answer kept (a TTL of 0): nothing to claim or store, so no layer of its own on the call's way.
  return (next) => (call) => (call.policy.ttlMs <= 0 ? next(call) : filledCall(next, call));

  async function filledCall(next: Next<I, T>, call: UpstreamCall<I>): Promise<Served<T>> {
    const claim = call.absent ? await options.store.claim(call.key) : ({ kind: 'unclaimed' } as const);
    if (claim.kind === 'filled' && options.isAnswer(claim.entry.value, call.input)) {
      return { value: claim.entry.value, fetchedAt: claim.entry.fetchedAt, cache: 'coalesced' };
    }
    let served;
    try {
      served = await next(call);
    } catch (error) {
      if (claim.kind === 'claimed') await options.store.fail(call.key);
      throw error;
    }
    await options.store.set(call.key, { value: served.value, fetchedAt: served.fetchedAt }, keepMsOf(call.policy));
    return served;
  }
}
