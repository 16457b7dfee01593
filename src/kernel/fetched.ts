import type { DashboardMetricResultWire } from './wire';

/**
 * An upstream answer and the instant it arrived from the upstream. Answers
 * may be served again later (from the shared cache, or stale when the
 * upstream fails), so their age travels with them and callers can see it
 * (`fetchedAt` in the schema).
 */
export interface Fetched<T> {
  value: T;
  /** Milliseconds since the epoch at which the upstream's answer arrived. */
  fetchedAt: number;
}

/**
 * How the call path found an answer: a fresh `hit` from the answer cache, a
 * `miss` it fetched, a `stale` answer served while one call refreshes it,
 * an identical call in flight it `coalesced` with (in this process or, with
 * Redis, on another replica), or a `stale_if_error` answer served because the
 * upstream failed.
 */
export type CacheOutcome = 'hit' | 'miss' | 'stale' | 'coalesced' | 'stale_if_error';

/** An answer as a protected endpoint serves it: with how it was found, so per-operation counters need not guess. */
export interface Served<T> extends Fetched<T> {
  cache: CacheOutcome;
}

/** A dashboard query's answer as the protected endpoint serves it: the queue sends the query, the asks slice it. */
export type DashboardAnswer = Served<DashboardMetricResultWire[]>;
