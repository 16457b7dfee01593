import type { Served } from '../../kernel/fetched';
import type { Stage } from './stage';

/**
 * Identical calls that overlap in time share one: the first starts the work,
 * the others join its promise until it settles. Process-wide, so it
 * de-duplicates across operations (the per-request DataLoaders only see one
 * operation). Nothing is remembered after settling: that is the cache's job.
 * One coalescer per endpoint, so one key always means one kind of answer.
 */
export class Coalescer<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /** Whether a call under `key` is in flight now. */
  has(key: string): boolean {
    return this.inFlight.has(key);
  }

  /** The in-flight call under `key`, or a new one from `start`. */
  run(key: string, start: () => Promise<T>): Promise<T> {
    const current = this.inFlight.get(key);
    if (current !== undefined) return current;
    // Started on a later tick, so a synchronous throw in `start` still rejects every joiner alike.
    const call = Promise.resolve().then(start);
    this.inFlight.set(key, call);
    // Registered before any caller's reaction, so the key is gone by the time a caller resumes (as with
    // `finally`, whose two more promises per call were kept alive across the upstream wait).
    const forget = () => {
      this.inFlight.delete(key);
    };
    call.then(forget, forget);
    return call;
  }
}

/**
 * The coalescing stage: a caller that finds an identical call in flight
 * joins it (`coalesced`); the first one starts it. A background refresh
 * joins the same way: it only has to make sure one call is under way.
 */
export function coalescingStage<I, T>(): Stage<I, T> {
  return (next) => {
    const coalescer = new Coalescer<Served<T>>();
    return (call) => {
      // The first caller takes the call's own promise: no layer of its own on the way.
      if (!coalescer.has(call.key)) return coalescer.run(call.key, () => next(call));
      return coalescer.run(call.key, () => next(call)).then((served) => ({ ...served, cache: 'coalesced' }));
    };
  };
}
