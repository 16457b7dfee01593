import type { Fetched } from '../datasources/fetched';

/**
 * Where upstream answers are kept between operations: in process by default,
 * in Redis when replicas share them. The call path decides freshness from
 * `fetchedAt`; a store only keeps entries for as long as it is told.
 *
 * Keys must name everything that changes the answer (see the call path's
 * key builders): a store never sees who asked.
 */
export interface AnswerStore {
  /** The entry under `key`, or undefined. Never rejects: a store that cannot answer behaves as a miss. */
  get(key: string): Promise<Fetched<unknown> | undefined>;
  /** Keeps `entry` for `keepMs` (its time to live plus the stale-if-error window). Never rejects. */
  set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void>;
}
