import type { SignInBackoffOptions } from '../../auth/signInBackoff';
import { SIGN_IN_DIRECTLY, type TokenExchange } from '../../auth/tokenExchange';
import type { AnswerStore } from './answerStore';
import type { MemoryAnswerStore } from './memoryAnswerStore';
import { MemoryRateStore, type RateStore } from './rateStore';

/** What the answer cache is built from: the settings only the call path knows (createUpstreams). */
export interface AnswerStoreParts {
  /** This process's answers: the whole cache in process, what a shared cache serves from while Redis is away. */
  local: MemoryAnswerStore;
  /** Longest a replica waits for another replica fetching the same answer before it fetches itself. */
  fillWaitMs: number;
  /** The tests' clock of the fill wait; undefined, the wall clock. */
  now: (() => number) | undefined;
}

/** What the token's exchange is built from: the settings only the call path knows (createUpstreams). */
export interface TokenExchangeParts {
  /** How long a replica's renewal lock lasts: longer than the longest sign-in. */
  lockMs: number;
  /** The configured sign-in backoff: a failure shared by another replica never lasts longer than its longest. */
  signInBackoff: SignInBackoffOptions;
  now: () => number;
}

/**
 * Where the call path keeps what outlives a request: the answer cache, the
 * governor's buckets and where a new token comes from. This process's own
 * (`IN_PROCESS_STORES`), or the replicas' through Redis
 * (src/redis/upstream/redisUpstreamStores.ts): the choice is made once, by
 * the composition root (src/app/composeProcess.ts); createUpstreams builds
 * each store with the settings it alone knows.
 */
export interface UpstreamStores {
  answers(parts: AnswerStoreParts): AnswerStore;
  rates(now: () => number): RateStore;
  tokenExchange(parts: TokenExchangeParts): TokenExchange;
}

/**
 * One process, nothing shared: its memory's answers (no claims: within one
 * process the coalescing stage already leaves one filler per key), its own
 * buckets, and a sign-in whenever the token is due.
 */
export const IN_PROCESS_STORES: UpstreamStores = {
  answers: ({ local }) => local,
  rates: () => new MemoryRateStore(),
  tokenExchange: () => SIGN_IN_DIRECTLY,
};
