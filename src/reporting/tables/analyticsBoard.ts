import type { MetricName } from '../../kernel/wire';

/** A waiting ask as the other replicas see it: the urls it needs (absent: the whole table), its metrics, its deadline. */
export interface PostedNeed {
  urls?: string[];
  metrics: MetricName[];
  deadline: number;
  /**
   * Demand a refused ask left (src/reporting/tables/leftDemand.ts): owed the slot at this instant, whichever
   * replica gets it; `deadline` is then when it is forgotten (up to MAX_RETRY_AFTER_MS past the post).
   */
  promisedAt?: number;
}

/** The furthest a refused ask's `retryAfter` names a slot (MAX_RETRY_AFTER_SECONDS' default), and so its demand lives. */
export const MAX_PROMISED_MS = 300_000;

/**
 * What replicas share about their analytics besides the tables (Redis,
 * `src/redis/reporting/redisAnalyticsBoard.ts`): the asks waiting for a slot,
 * so the replica that gets the slot carries every replica's asks in its one
 * query; the demand, so refreshes go in the cluster's order; and the metrics
 * the account's plan lacks, learned once for the cluster. Every method
 * degrades to this replica's own view when the board cannot answer.
 */
export interface AnalyticsBoard {
  /** This replica's waiting needs of a table now (none: withdrawn). Written in the background, the latest wins. */
  post(key: string, needs: readonly PostedNeed[]): void;
  /** Resolves once every post and learned metric so far is written (or given up on). */
  posted(): Promise<void>;
  /** What the other replicas wait for on a table now (past deadlines left out). */
  othersWaiting(key: string, now: number): Promise<PostedNeed[]>;
  /** Counts one ask of a table; the cluster's decayed demand for it, or undefined when the board cannot say. */
  recordDemand(key: string, now: number): Promise<number | undefined>;
  /** The metrics the account's plan was learned to lack, by any replica. */
  unavailableMetrics(): Promise<MetricName[]>;
  /** Tells the cluster (in the background) that the plan lacks this metric. */
  learnUnavailable(metric: MetricName): void;
  /**
   * Promises a table (`claimant`, its key) the first of `most` slots from `from` on, `slotMs` apart, that no other
   * table is promised, for the cluster (src/reporting/tables/slotClaims.ts is the rule): the slot's instant, false
   * when every one is promised, undefined when the board cannot say (this replica's own ledger then decides).
   */
  claimSlot(claimant: string, from: number, slotMs: number, most: number, now: number): Promise<number | false | undefined>;
  /**
   * Who the cluster promised the slot at `at` to (the claimants `claimSlot` recorded within half a slot of it), so
   * the replica that gets the slot carries that promise, whichever replica made it; undefined when the board cannot say.
   */
  claimantsAt(at: number, slotMs: number): Promise<string[] | undefined>;
  /**
   * Claims a table's next query for this replica, for `forMs` at most (its query's longest time): false while
   * another replica's query of it is in flight, so that one query answers the cluster. True when the board cannot say.
   */
  claimFetch(key: string, forMs: number): Promise<boolean>;
  /** This replica's query of the table landed (its answer stored) or was not sent: the claim ends. In the background. */
  releaseFetch(key: string): void;
}
