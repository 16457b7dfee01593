import { UpstreamError, type UpstreamService } from '../http/upstreamError';
import type { BudgetStore } from './budgetStore';
import type { BudgetName, UpstreamEventSink } from './events';

/** One bucket: e.g. the reporting budget of one account, or the render.json budget of one host. */
export interface Budget {
  name: BudgetName;
  /** Identifies the bucket (the account's email, the host); never shown to API clients or metrics. */
  key: string;
  perMinute: number;
}

export interface GovernorOptions {
  store: BudgetStore;
  /** Longest a call waits for its budget before it is refused (UPSTREAM_QUEUE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  now: () => number;
  /** How a queued call waits; tests pass one that moves a fake clock instead. */
  sleep: (ms: number) => Promise<void>;
  onEvent: UpstreamEventSink;
}

/**
 * Spends the upstream budgets the way the upstream counts them, so calls wait
 * a little (or are refused at once) here instead of being sent to collect a
 * 429, and a 429 that still comes pauses the budget for every caller.
 */
export class Governor {
  constructor(private readonly options: GovernorOptions) {}

  /**
   * Resolves when a request may be sent. A call that would wait longer than
   * `maxWaitMs` (default: the queue timeout) is refused at once with
   * `budget_exhausted` and the seconds after which it would fit.
   */
  async acquire(budget: Budget, where: { service: UpstreamService; endpoint: string }, maxWaitMs?: number): Promise<void> {
    const limitMs = maxWaitMs ?? this.options.queueTimeoutMs;
    const reservation = await this.options.store.reserve(`${budget.name}:${budget.key}`, budget.perMinute, this.options.now(), limitMs);
    if (!reservation.granted) {
      this.options.onEvent({ type: 'governor', outcome: 'refused', budget: budget.name, waitMs: reservation.retryAfterMs });
      throw new UpstreamError({
        ...where,
        kind: 'budget_exhausted',
        retryAfterSeconds: Math.max(1, Math.ceil(reservation.retryAfterMs / 1000)),
      });
    }
    if (reservation.waitMs > 0) {
      this.options.onEvent({ type: 'governor', outcome: 'queued', budget: budget.name, waitMs: reservation.waitMs });
      await this.options.sleep(reservation.waitMs);
      // Paired with `queued`, so the calls waiting right now (the queue's length) can be followed.
      this.options.onEvent({ type: 'governor', outcome: 'released', budget: budget.name, waitMs: reservation.waitMs });
    }
  }

  /** The upstream answered 429 with Retry-After: nobody spends this budget before then. */
  async pause(budget: Budget, retryAfterSeconds: number): Promise<void> {
    const waitMs = retryAfterSeconds * 1000;
    await this.options.store.pause(`${budget.name}:${budget.key}`, budget.perMinute, this.options.now() + waitMs);
    this.options.onEvent({ type: 'governor', outcome: 'paused', budget: budget.name, waitMs });
  }
}
