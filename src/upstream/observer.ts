import type { SignInReason } from '../auth/tokenExchange';
import type { CacheOutcome } from '../kernel/fetched';
import type { UpstreamService } from '../kernel/failures/upstreamError';

/** The rates the governor keeps (one bucket per account, email or host within each). */
export type RateName = 'reporting' | 'signin' | 'render';

export interface Where {
  service: UpstreamService;
  endpoint: string;
}

/** The kinds of asks in reporting's budget queue (src/reporting/budget/budgetQueue.ts). */
export type AskKindName = 'dashboard' | 'table';

/** Why an ask in reporting's budget queue got an error instead of numbers. */
export type AskRefusalReason = 'deadline' | 'metric_unavailable' | 'upstream_error' | 'share';

/** One finished HTTP attempt: where, how long, and the status or the failure kind. Never the URL. */
export interface HttpAttempt extends Where {
  durationMs: number;
  status?: number;
  failure?: 'timeout' | 'network';
  retryAfterSeconds?: number;
}

/**
 * The one hook of the upstream call path, and of reporting's budget queue
 * above it: a named method for every event.
 * The metrics implement it (metricsObserver.ts, which records them in observability/metrics/);
 * tests record it. Labels are deliberately coarse (service, endpoint, rate
 * name): never an email, a reader id or a cache key, which would leak caller
 * data into metrics and explode their cardinality. Called in the middle of
 * upstream calls, so the path calls it through `safeObserver`: a faulty
 * observer never fails the call it reports on.
 */
export interface UpstreamObserver {
  /** The transport finished one HTTP attempt (first tries, retries, repeats and sign-ins alike). */
  attemptFinished(attempt: HttpAttempt): void;
  /** The retry stage will send another attempt after `delayMs`. */
  retryScheduled(where: Where, retry: number, delayMs: number): void;
  /** The governor let one HTTP attempt go: as many as the attempts of governed endpoints. */
  governorGranted(rate: RateName, where: Where): void;
  /** An attempt starts waiting `waitMs` for its rate. */
  governorQueued(rate: RateName, waitMs: number): void;
  /** That wait is over (paired with `governorQueued`, so the queue's length can be followed). */
  governorReleased(rate: RateName, waitMs: number): void;
  /** An attempt would wait too long and is refused (`retryAfterMs` until it would fit). */
  governorRefused(rate: RateName, retryAfterMs: number): void;
  /** The upstream answered 429: the attempt's endpoint and its Retry-After (already clamped). */
  rateLimited(where: Where, retryAfterSeconds: number | undefined): void;
  /** After a 429, nobody spends this budget for `waitMs`. */
  budgetPaused(rate: RateName, waitMs: number): void;
  /** An endpoint's circuit breaker changed state. */
  breakerChanged(service: UpstreamService, state: 'open' | 'half_open' | 'closed'): void;
  /** How the call path found the answer it served one caller (see CacheOutcome). */
  answerServed(where: Where, outcome: CacheOutcome): void;
  /** A sign-in finished. */
  signedIn(outcome: 'ok' | 'failed'): void;
  /** This process starts a sign-in to replace a token (every sign-in but the first). */
  tokenRenewed(reason: Exclude<SignInReason, 'initial'>): void;
  /** Reporting's budget queue: asks of a kind waiting for a slot now. */
  asksWaiting(kind: AskKindName, count: number): void;
  /** An ask of the budget queue got an error instead of numbers: no slot within its deadline, a metric outside the plan, or another failure. */
  askRefused(kind: AskKindName, reason: AskRefusalReason): void;
  /** The budget queue spent a slot on a query of a kind that answered `asks` waiting asks (0: a refresh nobody waited for). */
  slotSpent(kind: AskKindName, asks: number): void;
  /**
   * The budget queue charged a caller's ad-hoc asks `slots` of a slot (1, or its part of a merged query).
   * `caller` is `context.caller.id`: whoever records it must bound it (metrics: BoundedLabel).
   */
  callerSlotsSpent(caller: string, slots: number): void;
  /** The budget queue refused a caller's ask at once: its fair share of the slots is spent. */
  callerAskRefused(caller: string): void;
  /** A whole analytics table was fetched and stored: its name (window and rank metric, never filter values) and fetchedAt. */
  tableFetched(table: string, fetchedAt: number): void;
}

const METHODS: readonly (keyof UpstreamObserver)[] = [
  'attemptFinished',
  'retryScheduled',
  'governorGranted',
  'governorQueued',
  'governorReleased',
  'governorRefused',
  'rateLimited',
  'budgetPaused',
  'breakerChanged',
  'answerServed',
  'signedIn',
  'tokenRenewed',
  'asksWaiting',
  'askRefused',
  'slotSpent',
  'callerSlotsSpent',
  'callerAskRefused',
  'tableFetched',
];

/** An observer that hears nothing: the path's observer when neither metrics nor a test listens. */
export const NO_OBSERVER: UpstreamObserver = Object.fromEntries(
  METHODS.map((method) => [method, () => undefined]),
) as unknown as UpstreamObserver;

/**
 * Every given observer hears every event, and none can fail the upstream call
 * it reports on: metrics are best effort, an upstream answer is worth more
 * than its counter.
 */
export function safeObserver(...observers: UpstreamObserver[]): UpstreamObserver {
  const safe: Record<string, (...args: unknown[]) => void> = {};
  for (const method of METHODS) {
    const listeners = observers.map((observer) => observer[method] as (...args: unknown[]) => void);
    safe[method] = (...args) => {
      for (const [index, listener] of listeners.entries()) {
        try {
          listener.apply(observers[index], args);
        } catch {
          // Best effort: see above.
        }
      }
    };
  }
  return safe as unknown as UpstreamObserver;
}
