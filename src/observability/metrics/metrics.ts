import type { Registry } from 'prom-client';
import { BoundedLabel } from './boundedLabel';
import { callerLabeler, type CallerLabeler, type CallerLabelOptions } from './callerLabel';
import { createInstruments, type Instruments, type MetricsOptions } from './registry';
import type { DropReason, FeedReadTrigger, RenewalReason, StartOutcome } from '../../kernel/observer';

export type { CallerLabelOptions };

/** The kinds of asks in the reporting budget queue, as labels (kernel/observer.ts names the events). */
type AskKindLabel = 'dashboard' | 'table';
/** Why an ask was refused, as a label. */
type AskRefusalLabel = 'deadline' | 'metric_unavailable' | 'upstream_error' | 'share';

/** Distinct analytics tables shown by their age; the rest share `__other__`. */
const TABLE_LABEL_LIMIT = 20;

export interface OperationRecord {
  name: string | null | undefined;
  /** query, mutation, subscription, or `unknown` when the document never parsed. */
  type: string;
  /** `ok`, or the first error code the client saw. */
  outcome: string;
  durationSeconds: number;
  upstreamCalls: number;
}

/** One upstream HTTP attempt, as the HTTP client saw it (see Observer.attemptFinished). */
export interface UpstreamAttemptRecord {
  service: string;
  /** The endpoint's path constant, never a URL: a query string carries reader ids. */
  endpoint: string;
  status?: number;
  /** How the attempt ended when there is no status: `timeout` or `network`. */
  failure?: string;
  durationSeconds: number;
  retryAfterSeconds?: number;
}

export type CacheResult = 'hit' | 'miss' | 'stale' | 'coalesced' | 'stale_if_error';
export type BreakerState = 'closed' | 'half_open' | 'open';

const BREAKER_VALUES: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/**
 * The recording functions the rest of the subgraph calls. Label values are
 * bounded by construction: enums, path constants, error codes, and operation
 * names and callers' labels through BoundedLabel. Nothing here takes a URL or
 * a query text, and a caller's id shows only as METRICS_CALLER_LABEL says
 * (by default a keyed hash: an id is often a person's).
 */
export class Metrics {
  readonly registry: Registry;
  private readonly instruments: Instruments;
  private readonly operationNames: BoundedLabel;
  private readonly tableNames = new BoundedLabel(TABLE_LABEL_LIMIT);
  private readonly callerLabel: CallerLabeler;

  /**
   * `operationNameLimit`: distinct operation names shown as labels (METRICS_DEFAULTS in src/config/metrics.ts);
   * `callerLabel`: what the fair-share series' `caller` label shows (default: a keyed hash, with a key of this process).
   */
  constructor(options: Omit<MetricsOptions, 'callerLabelled'> & { operationNameLimit: number; callerLabel?: CallerLabelOptions }) {
    const { callerLabel, ...instrumentOptions } = options;
    this.callerLabel = callerLabeler(callerLabel);
    this.instruments = createInstruments({ ...instrumentOptions, callerLabelled: this.callerLabel !== undefined });
    this.registry = this.instruments.registry;
    this.operationNames = new BoundedLabel(options.operationNameLimit);
  }

  recordOperation(record: OperationRecord): void {
    const labels = { operation_name: this.operationNames.valueOf(record.name), operation_type: record.type, outcome: record.outcome };
    this.instruments.operations.inc(labels);
    this.instruments.operationDuration.observe(labels, record.durationSeconds);
    this.instruments.operationUpstreamCalls.observe({ operation_type: record.type }, record.upstreamCalls);
  }

  recordLimitRefusal(code: string): void {
    this.instruments.limitRefusals.inc({ code });
  }

  recordUpstreamAttempt(attempt: UpstreamAttemptRecord): void {
    const where = { service: attempt.service, endpoint: attempt.endpoint };
    const labels = { ...where, status_class: statusClass(attempt) };
    this.instruments.upstreamRequests.inc(labels);
    this.instruments.upstreamDuration.observe(labels, attempt.durationSeconds);
    if (attempt.retryAfterSeconds !== undefined) {
      this.instruments.upstreamRetryAfter.observe({ service: attempt.service }, attempt.retryAfterSeconds);
    }
  }

  /** A 429 (one per attempt so answered): `subgraph_upstream_rate_limited_total`. */
  recordRateLimited(where: { service: string; endpoint: string }): void {
    this.instruments.upstreamRateLimited.inc(where);
  }

  recordRetryAfterWait(budget: string, seconds: number): void {
    this.instruments.upstreamRetryAfterWait.inc({ budget }, seconds);
  }

  recordCacheEvent(endpoint: string, result: CacheResult): void {
    this.instruments.cacheEvents.inc({ endpoint, result });
  }

  recordGovernorWait(budget: string, seconds: number): void {
    this.instruments.governorWaits.inc({ budget });
    this.instruments.governorWaitSeconds.inc({ budget }, seconds);
    this.instruments.governorQueueLength.inc({ budget });
  }

  recordGovernorRelease(budget: string): void {
    this.instruments.governorQueueLength.dec({ budget });
  }

  /** One HTTP attempt the governor let go: with subgraph_upstream_requests_total, attempts and grants agree. */
  recordGovernorGrant(budget: string): void {
    this.instruments.governorGrants.inc({ budget });
  }

  recordGovernorRefusal(budget: string): void {
    this.instruments.governorRefusals.inc({ budget });
  }

  setBreakerState(upstream: string, state: BreakerState): void {
    this.instruments.breakerState.set({ upstream }, BREAKER_VALUES[state]);
  }

  /** `reason` is a Redis error code, already bounded by SharedRedis. */
  recordRedisRefusal(reason: string): void {
    this.instruments.redisRefusals.inc({ reason });
  }

  recordSignIn(outcome: 'ok' | 'failed'): void {
    this.instruments.signIns.inc({ outcome });
  }

  recordTokenRenewal(reason: RenewalReason): void {
    this.instruments.tokenRenewals.inc({ reason });
  }

  recordBatch(loader: string, size: number): void {
    this.instruments.loaderBatchSize.observe({ loader }, size);
  }

  /**
   * A slot of the reporting budget a kind's query spent, and the asks it answered: `subgraph_reporting_asks_per_slot{kind}`;
   * the tables' also as `subgraph_analytics_asks_per_query` (as before the one queue).
   */
  recordSlotSpent(kind: AskKindLabel, asks: number): void {
    this.instruments.reportingAsksPerSlot.observe({ kind }, asks);
    if (kind === 'table') this.instruments.analyticsAsksPerQuery.observe(asks);
  }

  /** Asks of a kind waiting in the reporting budget's queue; the tables' also as `subgraph_analytics_asks_waiting`. */
  recordAsksWaiting(kind: AskKindLabel, count: number): void {
    this.instruments.reportingAsksWaiting.set({ kind }, count);
    if (kind === 'table') this.instruments.analyticsAsksWaiting.set(count);
  }

  /** An ask of a kind refused (or failed): `subgraph_reporting_ask_refusals_total{kind,reason}`; the tables' also as `subgraph_analytics_refusals_total`. */
  recordAskRefused(kind: AskKindLabel, reason: AskRefusalLabel): void {
    this.instruments.reportingAskRefusals.inc({ kind, reason });
    if (kind === 'table') this.instruments.analyticsRefusals.inc({ reason });
  }

  /** Slots (or parts of a merged query's slot) a caller's dashboards spent: `subgraph_reporting_caller_slots_total`, by caller label. */
  recordCallerSlots(caller: string, slots: number): void {
    if (this.callerLabel === undefined) this.instruments.callerSlots.inc(slots);
    else this.instruments.callerSlots.inc({ caller: this.callerLabel(caller) }, slots);
  }

  /** A caller's ask refused over its fair share: `subgraph_reporting_caller_refusals_total`, by caller label. */
  recordCallerRefusal(caller: string): void {
    if (this.callerLabel === undefined) this.instruments.callerRefusals.inc();
    else this.instruments.callerRefusals.inc({ caller: this.callerLabel(caller) });
  }

  /** A table's name is its window and rank metric (never filter values), bounded. */
  recordTableFetched(name: string, fetchedAt: number): void {
    const label = this.tableNames.valueOf(name);
    const ages = this.instruments.analyticsTableAge.fetchedAt;
    ages.set(label, Math.max(ages.get(label) ?? 0, fetchedAt));
  }

  /** `subgraph_subscriptions_open{field}` up: one more subscription open on this replica. */
  recordSubscriptionOpened(field: string): void {
    this.instruments.subscriptionsOpen.inc({ field });
  }

  /** `subgraph_subscriptions_open{field}` down. */
  recordSubscriptionClosed(field: string): void {
    this.instruments.subscriptionsOpen.dec({ field });
  }

  /** `subgraph_subscription_events_total{field}`: one per subscriber and emission. */
  recordEventSent(field: string): void {
    this.instruments.subscriptionEvents.inc({ field });
  }

  recordSubscriberDropped(reason: DropReason): void {
    this.instruments.subscribersDropped.inc({ reason });
  }

  recordFeedRead(trigger: FeedReadTrigger): void {
    this.instruments.feedReads.inc({ trigger });
  }

  recordSocketRefused(reason: 'max_sockets'): void {
    this.instruments.socketsRefused.inc({ reason });
  }

  recordSocketClosed(reason: 'idle'): void {
    this.instruments.socketsClosed.inc({ reason });
  }

  recordSubscribeStart(outcome: StartOutcome): void {
    this.instruments.subscriptionStarts.inc({ outcome });
  }

  /** `subgraph_upstream_signin_backoff_seconds` reads `secondsLeft` at each scrape (e.g. backoffSeconds(tokens.signInState())). */
  watchSignInBackoff(secondsLeft: () => number): void {
    this.instruments.signInBackoff.source.read = secondsLeft;
  }
}

function statusClass(attempt: UpstreamAttemptRecord): string {
  if (attempt.status !== undefined) return `${Math.floor(attempt.status / 100)}xx`;
  return attempt.failure ?? 'network';
}
