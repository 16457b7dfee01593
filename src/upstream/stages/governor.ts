import { clampSeconds } from '../transport/retryAfter';
import type { UpstreamError } from '../../kernel/failures/upstreamError';
import type { RateStore } from '../stores/rateStore';
import type { Observer } from '../../kernel/observer';
import { bucketKey, RateBucket, type Rate, type Where } from './rateBucket';
import type { SlotGrant } from '../transport/httpClient';

export type { Rate } from './rateBucket';

export interface GovernorOptions {
  store: RateStore;
  /** Longest a call waits for its budget before it is refused (UPSTREAM_QUEUE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  now: () => number;
  /** How a queued call waits; tests pass one that moves a fake clock instead. */
  sleep: (ms: number) => Promise<void>;
  observer: Observer;
  /** Longest pause one 429 may impose, and so the largest `retryAfter` a refusal reports (MAX_RETRY_AFTER_SECONDS). */
  maxRetryAfterSeconds: number;
}

/**
 * The right to send one HTTP attempt (not the budget queue's `Turn`, a slot's query). After a pause, the first grant is the
 * probe: the others wait until it reports how the upstream answered.
 */
export interface AttemptGrant {
  readonly probe: boolean;
  /** `answered`: the upstream took the request (any status but 429); `rate_limited`: a 429; `unanswered`: no answer (timeout, network). */
  finish(outcome: 'answered' | 'rate_limited' | 'unanswered'): void;
}

/** A budget the upstream paused with a 429: until `untilMs`, then one probe at a time until one is answered. */
interface PauseGate {
  untilMs: number;
  probe?: { ended: Promise<void>; end: () => void };
}

const PLAIN_GRANT: AttemptGrant = { probe: false, finish: () => undefined };

/**
 * Spends the upstream budgets the way the upstream counts them, so calls wait
 * a little (or are refused at once) here instead of being sent to collect a
 * 429, and a 429 that still comes pauses the budget for every caller. Each
 * grant is one HTTP attempt (the caller asks again for every retry). The
 * reporting budget's attempts carry the budget queue's grant (the queue alone
 * decides who spends it); the governor keeps only the pause after a 429 and
 * its probe for them, and spends the sign-in and render.json rates itself.
 */
export class Governor {
  private readonly gates = new Map<string, PauseGate>();
  /** One per rate the process spends (its configured accounts and hosts), built at its first attempt rather than per attempt. */
  private readonly buckets = new Map<string, RateBucket>();
  private readonly maxRetryAfterSeconds: number;

  constructor(private readonly options: GovernorOptions) {
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds;
  }

  /**
   * Resolves when one request may be sent. A call that would wait longer than
   * `maxWaitMs` (default: the queue timeout) is refused at once with
   * `budget_exhausted` and the seconds after which it would fit. While the
   * budget is paused, and then until a probe is answered, calls wait for the
   * probe (within the same limit); `within` is the turn of the call a retry
   * belongs to, so a probe's own retry does not wait for itself, and any
   * other retry is refused rather than made the probe.
   * `grant`: the attempt's place is the budget queue's to give (a reporting
   * query: src/reporting/budget/budgetQueue.ts), so once the pause lets it
   * through, the grant is awaited instead of a reservation here.
   */
  async acquire(rate: Rate, where: Where, maxWaitMs?: number, within?: AttemptGrant, grant?: SlotGrant): Promise<AttemptGrant> {
    const limitMs = maxWaitMs ?? this.options.queueTimeoutMs;
    const key = bucketKey(rate);
    const startedAt = this.options.now();
    const take = (leftMs: number) =>
      grant === undefined ? this.bucket(rate).take(where, leftMs) : grant(where, maxWaitMs === undefined ? undefined : leftMs);
    for (;;) {
      const leftMs = limitMs - (this.options.now() - startedAt);
      const gate = this.gates.get(key);
      if (gate === undefined || (gate.probe !== undefined && within?.probe === true)) {
        await take(leftMs);
        return PLAIN_GRANT;
      }
      if (gate.probe === undefined) {
        // A retry never probes: a probe's outcome must be reported, and a retry's turn has no one to report it,
        // so the bucket would wait for it until restart. The retry is not sent; its caller keeps its own error.
        if (within !== undefined) throw this.refuse(rate, where, Math.max(gate.untilMs - this.options.now(), 1_000));
        return this.probe(key, gate, () => take(leftMs));
      }
      // Another call is probing: wait for its answer, but never past this call's limit, nor for a pause it cannot outlast.
      const pauseLeftMs = gate.untilMs - this.options.now();
      if (pauseLeftMs > leftMs || leftMs <= 0) throw this.refuse(rate, where, Math.max(pauseLeftMs, 1_000));
      const outcome = await Promise.race([
        gate.probe.ended.then(() => 'ended' as const),
        this.options.sleep(leftMs).then(() => 'late' as const),
      ]);
      if (outcome === 'late') throw this.refuse(rate, where, Math.max(gate.untilMs - this.options.now(), 1_000));
    }
  }

  /** The budgets this process spends from, known from the start: a shared store watches them (src/redis/upstream/redisRateStore.ts). */
  watch(rates: readonly Rate[]): void {
    for (const rate of rates) this.options.store.watch?.(bucketKey(rate), rate.perMinute);
  }

  /**
   * The rate's bucket in the governor's store (the same key, so replicas sharing Redis share it): the budget
   * queue grants the reporting attempts from it (upstreams.ts hands it over with the dashboard endpoint).
   */
  bucket(rate: Rate): RateBucket {
    const key = bucketKey(rate);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, (bucket = new RateBucket(rate, this.options)));
    return bucket;
  }

  /** The upstream answered 429 with Retry-After: nobody spends this budget before then, and then one probe goes first. */
  async pause(rate: Rate, retryAfterSeconds: number): Promise<void> {
    const waitMs = clampSeconds(retryAfterSeconds, this.maxRetryAfterSeconds) * 1000;
    const key = bucketKey(rate);
    const untilMs = this.options.now() + waitMs;
    const gate = this.gates.get(key);
    if (gate === undefined) this.gates.set(key, { untilMs });
    else gate.untilMs = Math.max(gate.untilMs, untilMs);
    await this.options.store.pause(key, rate.perMinute, untilMs);
    this.options.observer.budgetPaused(rate.name, waitMs);
  }

  private async probe(key: string, gate: PauseGate, take: () => Promise<void>): Promise<AttemptGrant> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const probe = { ended, end };
    gate.probe = probe;
    const release = (answered: boolean) => {
      if (gate.probe !== probe) return;
      gate.probe = undefined;
      // Answered: the upstream takes requests again. Otherwise the gate stays for the next call to probe.
      if (answered && this.gates.get(key) === gate) this.gates.delete(key);
      end();
    };
    try {
      await take();
    } catch (error) {
      release(false);
      throw error;
    }
    return { probe: true, finish: (outcome) => release(outcome === 'answered') };
  }

  private refuse(rate: Rate, where: Where, retryAfterMs: number): UpstreamError {
    return this.bucket(rate).refuse(where, retryAfterMs);
  }
}
