import { UpstreamError, type UpstreamService } from '../../kernel/failures/upstreamError';
import type { RateStore } from '../stores/rateStore';
import type { RateName, Observer } from '../../kernel/observer';

/** One bucket: e.g. the reporting budget of one account, or the render.json budget of one host. */
export interface Rate {
  name: RateName;
  /** Identifies the bucket (the account's email, the host); never shown to API clients or metrics. */
  key: string;
  perMinute: number;
}

export type Where = { service: UpstreamService; endpoint: string };

export interface RateBucketOptions {
  /** The process's rate store (memory, or the replicas' Redis): the same one the governor spends the other rates from. */
  store: RateStore;
  now: () => number;
  /** How a granted attempt waits for its moment; tests pass one that moves a fake clock instead. */
  sleep: (ms: number) => Promise<void>;
  observer: Pick<Observer, 'governorGranted' | 'governorQueued' | 'governorReleased' | 'governorRefused'>;
  /** The largest `retryAfter` a refusal reports (MAX_RETRY_AFTER_SECONDS). */
  maxRetryAfterSeconds: number;
}

/**
 * One rate's bucket in the rate store, spent one HTTP attempt at a time: the
 * governor takes the sign-in and render.json attempts from theirs, the budget
 * queue grants the reporting attempts from the reporting one (the only thing
 * that does: src/reporting/budget/budgetQueue.ts). Every key is the rate's
 * name and key, so replicas sharing a Redis store share the bucket.
 */
export class RateBucket {
  readonly key: string;

  constructor(
    readonly rate: Rate,
    private readonly options: RateBucketOptions,
  ) {
    this.key = bucketKey(rate);
  }

  /** The slots a minute the bucket refills with. */
  get perMinute(): number {
    return this.rate.perMinute;
  }

  /**
   * Takes one attempt's place: resolves when the attempt may be sent (after
   * waiting its turn, at most `maxWaitMs`), or rejects with `budget_exhausted`
   * and the seconds after which it would fit, having taken nothing.
   */
  async take(where: Where, maxWaitMs: number): Promise<void> {
    const reservation = await this.options.store.reserve(this.key, this.rate.perMinute, this.options.now(), Math.max(0, maxWaitMs));
    if (!reservation.granted) throw this.refuse(where, reservation.retryAfterMs);
    if (reservation.waitMs > 0) {
      this.options.observer.governorQueued(this.rate.name, reservation.waitMs);
      await this.options.sleep(reservation.waitMs);
      // Paired with `queued`, so the calls waiting right now (the queue's length) can be followed.
      this.options.observer.governorReleased(this.rate.name, reservation.waitMs);
    }
    // One grant, one HTTP attempt: the same count as subgraph_upstream_requests_total.
    this.options.observer.governorGranted(this.rate.name, where);
  }

  /**
   * How long until the bucket has a place (0: now), read from the store
   * without taking it (a reservation that may not wait at all is refused, and
   * a refused one takes nothing): what the budget queue sleeps until, rather
   * than learning it from a refused query.
   */
  async freeInMs(): Promise<number> {
    const look = await this.options.store.reserve(this.key, this.rate.perMinute, this.options.now(), LOOK_ONLY);
    return look.granted ? 0 : look.retryAfterMs;
  }

  /** Tells `listener` each time a shared store spends from the shared bucket again after its local share (RateStore.onSharedAgain). */
  onSharedAgain(listener: () => void): () => void {
    return this.options.store.onSharedAgain?.(listener) ?? (() => undefined);
  }

  /** The refusal of an attempt that found no place within its wait (told to the observer): `budget_exhausted`, retryAfter clamped. */
  refuse(where: Where, retryAfterMs: number): UpstreamError {
    this.options.observer.governorRefused(this.rate.name, retryAfterMs);
    const retryAfterSeconds = Math.min(Math.max(1, Math.ceil(retryAfterMs / 1000)), this.options.maxRetryAfterSeconds);
    return new UpstreamError({ ...where, kind: 'budget_exhausted', retryAfterSeconds });
  }
}

/** A wait no reservation fits in (every wait is at least 0): the store refuses, takes nothing, and says how long until a place. */
const LOOK_ONLY = -1;

export function bucketKey(rate: Rate): string {
  return `${rate.name}:${rate.key}`;
}
