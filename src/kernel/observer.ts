import type { CacheOutcome } from './fetched';
import type { UpstreamService } from './failures/upstreamError';

/** Why this process replaces its token: it is about to expire, or the upstream rejected it (401). */
export type RenewalReason = 'expiry' | 'rejected';

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

/** Why a subscriber was dropped by the subgraph (not by its own choice). */
export type DropReason = 'slow_consumer' | 'shutdown';

/** Why a live feed read its table: a subscriber waiting for its first numbers, a refresh of the table, or the pulse. */
export type FeedReadTrigger = 'subscriber' | 'refresh' | 'pulse';

/** What became of a subscribe message on a WebSocket (src/web/subscriptions/webSocketTransport.ts). */
export type StartOutcome = 'pipeline' | 'abandoned' | 'refused_rate' | 'refused_waiting';

/**
 * One GraphQL operation as its response leaves (src/graphql/operationPlugin.ts): what the operation log's line
 * says and the operations' series count. Never the variables or the query text: they carry reader ids and could
 * carry anything a client pastes in.
 */
export interface OperationFinished {
  name: string | null;
  /** query, mutation or subscription; null when the document never parsed. */
  type: string | null;
  /** The router-forwarded client name (`apollographql-client-name`): a label to tell callers apart, never an identity. */
  clientName?: string;
  durationMs: number;
  status: number;
  /** `ok`, or the first error code the client saw. */
  outcome: string;
  /** Every error code the client saw, in order (repeats included). */
  errorCodes: readonly string[];
  /** The codes among them that a limit sent (src/graphql/limits/codes.ts). */
  limitCodes: readonly string[];
  upstreamCalls: number;
  refusedUpstreamCalls: number;
  cacheHits: number;
  /** How its analytics asks were answered (fresh, table, stale, merged, refused), in order. */
  analyticsAsks: readonly string[];
  /** Answered whole by the response cache: nothing executed, so no calls. */
  responseCacheHit: boolean;
}

/**
 * The process's one observer: a named method for every event of the upstream
 * call path, reporting's budget queue above it, the live numbers and each
 * GraphQL operation. The metrics implement it
 * (src/observability/metricsObserver.ts), the operation log writes its lines
 * from it (src/observability/operationLog.ts), tests record it. Labels are
 * deliberately coarse (service, endpoint, rate name): never an email, a reader
 * id or a cache key, which would leak caller data into metrics and explode
 * their cardinality. Called in the middle of calls and emissions, so it is
 * always called through `safeObserver`: a faulty observer never fails what it
 * reports on.
 */
export interface Observer {
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
  tokenRenewed(reason: RenewalReason): void;
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
  /** A subscription opened on this replica (any transport): its id (for the log) and root field. */
  subscriptionOpened(subscription: { id: string; field: string }): void;
  /** That subscription ended (its subscriber left, or was dropped): how long it lasted and the events it was sent. */
  subscriptionClosed(subscription: { id: string; field: string; durationMs: number; events: number }): void;
  /** One event went to one subscriber. */
  eventSent(field: string): void;
  /** The subgraph dropped a subscriber. */
  subscriberDropped(reason: DropReason): void;
  /** A live feed read its table. */
  feedRead(trigger: FeedReadTrigger): void;
  /** A WebSocket upgrade was refused by a cap. */
  socketRefused(reason: 'max_sockets'): void;
  /** The subgraph closed a WebSocket that carried no subscription. */
  socketClosed(reason: 'idle'): void;
  /** What became of a subscribe message on a WebSocket. */
  subscribeStarted(outcome: StartOutcome): void;
  /** A GraphQL operation's response leaves. */
  operationFinished(operation: OperationFinished): void;
  /** Redis refused a command this replica needs (e.g. NOPERM): by a bounded reason. */
  redisRefused(reason: string): void;
  /** A limit refused an operation before it ran (e.g. a document outside the persisted manifest). */
  limitRefused(code: string): void;
  /** A per-operation DataLoader sent one batch of `size` keys. */
  batchLoaded(loader: string, size: number): void;
  /** An operation failed with an error of no code of its own (a bug): logged at error with its stack. */
  unexpectedError(error: unknown, path: readonly (string | number)[] | undefined): void;
}

/** Every event, once: a record, so that the compiler refuses an event of the interface left out here. */
const EVENTS: Record<keyof Observer, true> = {
  attemptFinished: true,
  retryScheduled: true,
  governorGranted: true,
  governorQueued: true,
  governorReleased: true,
  governorRefused: true,
  rateLimited: true,
  budgetPaused: true,
  breakerChanged: true,
  answerServed: true,
  signedIn: true,
  tokenRenewed: true,
  asksWaiting: true,
  askRefused: true,
  slotSpent: true,
  callerSlotsSpent: true,
  callerAskRefused: true,
  tableFetched: true,
  subscriptionOpened: true,
  subscriptionClosed: true,
  eventSent: true,
  subscriberDropped: true,
  feedRead: true,
  socketRefused: true,
  socketClosed: true,
  subscribeStarted: true,
  operationFinished: true,
  redisRefused: true,
  limitRefused: true,
  batchLoaded: true,
  unexpectedError: true,
};
const METHODS = Object.keys(EVENTS) as (keyof Observer)[];

/** An observer that hears nothing: what a part hears when neither metrics nor a log nor a test listens. */
export const NO_OBSERVER: Observer = Object.fromEntries(METHODS.map((method) => [method, () => undefined])) as unknown as Observer;

/**
 * Every given observer hears every event, and none can fail the call or the
 * emission it reports on: metrics and logs are best effort, an answer is worth more
 * than its counter.
 */
export function safeObserver(...observers: Observer[]): Observer {
  const safe: Record<string, (...args: unknown[]) => void> = {};
  for (const method of METHODS) {
    // Only the parts that hear this event: a part's NO_OBSERVER method is left out (an event sent to every
    // subscriber of a feed, or of every upstream attempt, calls no listener that does nothing).
    const hearing = observers
      .filter((observer) => observer[method] !== NO_OBSERVER[method])
      .map((observer) => ({ observer, listener: observer[method] as (...args: unknown[]) => void }));
    safe[method] = (...args) => {
      for (const { observer, listener } of hearing) {
        try {
          listener.apply(observer, args);
        } catch {
          // Best effort: see above.
        }
      }
    };
  }
  return safe as unknown as Observer;
}
