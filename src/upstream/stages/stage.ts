import type { SlotGrant } from '../transport/httpClient';
import type { Served } from '../../kernel/fetched';
import type { FreshnessPolicy } from './freshness';

/** One call to a protected endpoint as it travels the stages (see pipeline.ts). */
export interface UpstreamCall<I> {
  input: I;
  /** The answer's key (keys.ts): everything that changes the answer. */
  key: string;
  /** Time to live and stale-if-error window of this input's answer, read once at the start of the call. */
  policy: FreshnessPolicy;
  /** The answer cache had no usable entry at all, so the fill stage may claim the key (set by the cache stage). */
  absent: boolean;
  /** A stale-while-revalidate refresh nobody waits for (set by the cache stage). */
  background: boolean;
  /**
   * The budget queue's grant for each HTTP attempt the call makes (a reporting query): handed to the request,
   * so only an attempt that goes out spends a place (a hit, a coalesced call or a fill another replica made
   * never reach it; a stale answer's refresh does).
   */
  grant?: SlotGrant;
}

/** The rest of the pipeline, as seen from one stage. */
export type Next<I, T> = (call: UpstreamCall<I>) => Promise<Served<T>>;

/** One stage: given the stages after it, the call path from here on. */
export type Stage<I, T> = (next: Next<I, T>) => Next<I, T>;
