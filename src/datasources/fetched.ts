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
