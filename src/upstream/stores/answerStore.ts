import type { Fetched } from '../../kernel/fetched';

/**
 * What `claim` gives the caller that missed:
 * - `claimed`: it fetches the answer, then must call `set` (answer) or `fail`
 *   (no answer) so that whoever waits on the claim stops waiting at once;
 * - `filled`: another filler stored the answer while the caller waited;
 * - `unclaimed`: no one to wait for (claims are off, the other filler gave up,
 *   or the wait lapsed): the caller fetches without a claim.
 */
export type Claim = { kind: 'claimed' } | { kind: 'filled'; entry: Fetched<unknown> } | { kind: 'unclaimed' };

/**
 * Where upstream answers are kept between operations: in process by default,
 * in Redis when replicas share them. Both implement the same contract (one
 * test suite runs against each, test/upstream/answerStoreContract.test.ts).
 * The call path decides freshness from `fetchedAt`; a store only keeps
 * entries for as long as it is told.
 *
 * Keys must name everything that changes the answer (see keys.ts): a store
 * never sees who asked. No method rejects: a store that cannot answer
 * behaves as a miss, and a claim it cannot take is `unclaimed`.
 */
export interface AnswerStore {
  /** The entry under `key`, or undefined. */
  get(key: string): Promise<Fetched<unknown> | undefined>;
  /**
   * Asks to fill `key`. While someone else holds the claim this waits (at
   * most the store's fill wait) for their `set` or `fail`.
   */
  claim(key: string): Promise<Claim>;
  /** Keeps `entry` for `keepMs` (0 or less keeps nothing) and releases the claim on `key`. */
  set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void>;
  /** The fill of `key` failed: releases the claim without an answer; the waiters return `unclaimed` at once. */
  fail(key: string): Promise<void>;
}
