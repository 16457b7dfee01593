import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Every metric name starts with this, so dashboards can tell ours from the exporter's. */
const METRIC_PREFIX = 'subgraph_';

/**
 * Seconds. Upstream calls and operations both span a few milliseconds (cache,
 * emulator) to the 10 s timeout; finer buckets at the low end show the cache.
 */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 1000, 10_000];
const CALLS_BUCKETS = [0, 1, 2, 5, 10, 25, 50, 100];
const RETRY_AFTER_BUCKETS = [1, 2, 5, 10, 30, 60, 300, 3600];
/** Asks one upstream query answered: 0 for a refresh nobody waited for. */
const ASKS_BUCKETS = [0, 1, 2, 5, 10, 25, 50, 100, 500];

export interface MetricsOptions {
  /** Process and event-loop metrics (prom-client's defaults). Off in unit tests that build many registries. */
  processMetrics?: boolean;
  /** The clock the analytics tables' ages are read on (default Date.now; tests pin it). */
  now?: () => number;
  /** false: the fair-share series carry no `caller` label (METRICS_CALLER_LABEL=off). Default: they do. */
  callerLabelled?: boolean;
}

/** The registry and every instrument, built once per process (tests build their own). */
export function createInstruments(options: MetricsOptions = {}) {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  const registers = [registry];
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
  const callerLabel = options.callerLabelled === false ? [] : (['caller'] as const);
  return {
    registry,
    operations: new Counter({
      name: name('graphql_operations_total'),
      help: 'GraphQL operations by operation name (bounded), type and outcome (ok or the first error code)',
      labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
      registers,
    }),
    operationDuration: new Histogram({
      name: name('graphql_operation_duration_seconds'),
      help: 'Time from request start to response, by operation name (bounded), type and outcome',
      labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    operationUpstreamCalls: new Histogram({
      name: name('graphql_operation_upstream_calls'),
      help: 'Upstream calls one operation was granted from its allowance (MAX_UPSTREAM_CALLS_PER_OPERATION)',
      labelNames: ['operation_type'] as const,
      buckets: CALLS_BUCKETS,
      registers,
    }),
    limitRefusals: new Counter({
      name: name('graphql_limit_refusals_total'),
      help: 'Operations or fields refused by a limit, by error code',
      labelNames: ['code'] as const,
      registers,
    }),
    upstreamRequests: new Counter({
      name: name('upstream_requests_total'),
      help: 'HTTP requests to an upstream (each attempt, retries included) by service, endpoint and status class',
      labelNames: ['service', 'endpoint', 'status_class'] as const,
      registers,
    }),
    upstreamDuration: new Histogram({
      name: name('upstream_request_duration_seconds'),
      help: 'Duration of one upstream HTTP attempt, by service, endpoint and status class',
      labelNames: ['service', 'endpoint', 'status_class'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    upstreamRateLimited: new Counter({
      name: name('upstream_rate_limited_total'),
      help: 'Upstream 429 answers by service and endpoint',
      labelNames: ['service', 'endpoint'] as const,
      registers,
    }),
    upstreamRetryAfter: new Histogram({
      name: name('upstream_retry_after_seconds'),
      help: 'Retry-After values the upstream sent (429, 503), in seconds',
      labelNames: ['service'] as const,
      buckets: RETRY_AFTER_BUCKETS,
      registers,
    }),
    upstreamRetryAfterWait: new Counter({
      name: name('upstream_retry_after_wait_seconds_total'),
      help: 'Seconds the governor paused a budget because the upstream sent Retry-After',
      labelNames: ['budget'] as const,
      registers,
    }),
    cacheEvents: new Counter({
      name: name('upstream_cache_events_total'),
      help: 'Answer-cache lookups by endpoint and result: hit, miss, stale (served while refreshing), coalesced (joined a call in flight), stale_if_error',
      labelNames: ['endpoint', 'result'] as const,
      registers,
    }),
    governorWaits: new Counter({
      name: name('upstream_governor_waits_total'),
      help: 'Calls the rate governor queued until their budget had room, by budget',
      labelNames: ['budget'] as const,
      registers,
    }),
    governorWaitSeconds: new Counter({
      name: name('upstream_governor_wait_seconds_total'),
      help: 'Seconds calls were queued by the rate governor, by budget',
      labelNames: ['budget'] as const,
      registers,
    }),
    governorQueueLength: new Gauge({
      name: name('upstream_governor_queue_length'),
      help: 'Calls waiting for their budget in the rate governor right now, by budget',
      labelNames: ['budget'] as const,
      registers,
    }),
    governorGrants: new Counter({
      name: name('upstream_governor_grants_total'),
      help: 'HTTP attempts the rate governor let go (first tries, retries, repeats and sign-ins alike), by budget',
      labelNames: ['budget'] as const,
      registers,
    }),
    governorRefusals: new Counter({
      name: name('upstream_governor_refusals_total'),
      help: 'Calls the rate governor refused (queue full or wait too long), by budget',
      labelNames: ['budget'] as const,
      registers,
    }),
    breakerState: new Gauge({
      name: name('upstream_breaker_state'),
      help: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open',
      labelNames: ['upstream'] as const,
      registers,
    }),
    redisRefusals: new Counter({
      name: name('redis_refused_total'),
      help: 'Redis commands Redis answered with an error (OOM, WRONGTYPE, ERR...) or values read back that the subgraph did not write (BADVALUE); each fails one command, never an outage',
      labelNames: ['reason'] as const,
      registers,
    }),
    signIns: new Counter({
      name: name('upstream_signins_total'),
      help: 'Sign-ins to the reporting API by outcome (ok, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    tokenRenewals: new Counter({
      name: name('upstream_token_renewals_total'),
      help: 'Reporting token renewals by reason: expiry (renewed ahead of exp) or rejected (after a 401)',
      labelNames: ['reason'] as const,
      registers,
    }),
    loaderBatchSize: new Histogram({
      name: name('dataloader_batch_size'),
      help: 'Keys per DataLoader batch, by loader',
      labelNames: ['loader'] as const,
      buckets: BATCH_BUCKETS,
      registers,
    }),
    signInBackoff: signInBackoffGauge(name('upstream_signin_backoff_seconds'), registers),
    // Reporting's budget queue and the analytics tables (docs/analytics-tables.md).
    analyticsAsksPerQuery: new Histogram({
      name: name('analytics_asks_per_query'),
      help: 'Analytics asks one dashboard query answered (0: a refresh nobody waited for)',
      buckets: ASKS_BUCKETS,
      registers,
    }),
    analyticsAsksWaiting: new Gauge({
      name: name('analytics_asks_waiting'),
      help: 'Analytics asks waiting for a slot of the reporting budget',
      registers,
    }),
    analyticsRefusals: new Counter({
      name: name('analytics_refusals_total'),
      help: 'Analytics asks answered with an error, by reason (deadline: no slot in time; metric_unavailable; upstream_error)',
      labelNames: ['reason'] as const,
      registers,
    }),
    reportingAsksWaiting: new Gauge({
      name: name('reporting_asks_waiting'),
      help: "Asks waiting in the reporting budget's queue for a slot, by kind (dashboard, table)",
      labelNames: ['kind'] as const,
      registers,
    }),
    reportingAskRefusals: new Counter({
      name: name('reporting_ask_refusals_total'),
      help: "Asks of the reporting budget's queue answered with a refusal or an error, by kind (dashboard, table) and reason (deadline: no slot in time; share: over the caller's fair share; metric_unavailable; upstream_error)",
      labelNames: ['kind', 'reason'] as const,
      registers,
    }),
    reportingAsksPerSlot: new Histogram({
      name: name('reporting_asks_per_slot'),
      help: "Asks one slot of the reporting budget answered, by kind (dashboard, table; 0: a refresh nobody waited for); its count is the slots each kind's queries spent",
      labelNames: ['kind'] as const,
      buckets: ASKS_BUCKETS,
      registers,
    }),
    callerSlots: new Counter({
      name: name('reporting_caller_slots_total'),
      help: "Slots of the reporting budget spent on each caller's dashboard asks (a merged query's slot split between its callers), by caller (METRICS_CALLER_LABEL: a keyed hash of the id by default; bounded: the first 50, then __other__)",
      labelNames: callerLabel,
      registers,
    }),
    callerRefusals: new Counter({
      name: name('reporting_caller_refusals_total'),
      help: 'Dashboard asks refused at once because their caller spent its fair share of the reporting budget, by caller (labelled like reporting_caller_slots_total)',
      labelNames: callerLabel,
      registers,
    }),
    analyticsTableAge: tableAgeGauge(name('analytics_table_age_seconds'), registers, options.now ?? Date.now),
    // The live numbers' (docs/subscriptions.md).
    subscriptionsOpen: new Gauge({
      name: name('subscriptions_open'),
      help: 'Subscriptions open on this replica, by field (every transport)',
      labelNames: ['field'] as const,
      registers,
    }),
    subscriptionEvents: new Counter({
      name: name('subscription_events_total'),
      help: 'Events sent to subscribers, by field (one per subscriber and emission)',
      labelNames: ['field'] as const,
      registers,
    }),
    subscribersDropped: new Counter({
      name: name('subscribers_dropped_total'),
      help: 'Subscribers the subgraph dropped, by reason (slow_consumer: its socket had too much unsent; shutdown: the drain)',
      labelNames: ['reason'] as const,
      registers,
    }),
    socketsRefused: new Counter({
      name: name('subscription_sockets_refused_total'),
      help: 'WebSocket upgrades refused by a cap, by reason (max_sockets: MAX_SOCKETS open already)',
      labelNames: ['reason'] as const,
      registers,
    }),
    socketsClosed: new Counter({
      name: name('subscription_sockets_closed_total'),
      help: 'WebSockets the subgraph closed that carried no subscription, by reason (idle: SUBSCRIPTION_IDLE_TIMEOUT_SECONDS)',
      labelNames: ['reason'] as const,
      registers,
    }),
    subscriptionStarts: new Counter({
      name: name('subscription_starts_total'),
      help:
        "Subscribe messages on WebSockets, by outcome (pipeline: started through Apollo's pipeline; abandoned: ended before its turn, never started; " +
        'refused_rate: over SUBSCRIPTION_STARTS_PER_SECOND; refused_waiting: MAX_SUBSCRIPTIONS starts waiting already)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    feedReads: new Counter({
      name: name('subscription_feed_reads_total'),
      help: 'Reads of their table by the live feeds, by trigger (subscriber: a first emission; refresh: newer numbers written; pulse)',
      labelNames: ['trigger'] as const,
      registers,
    }),
  };
}

/**
 * Age of the newest table of each window and rank metric, read at scrape
 * time from `fetchedAt` (set by Metrics.recordTableFetched; bounded labels).
 */
function tableAgeGauge(name: string, registers: Registry[], now: () => number) {
  const fetchedAt = new Map<string, number>();
  const gauge = new Gauge({
    name,
    help: 'Age of the newest table of each window and rank metric (bounded labels)',
    labelNames: ['table'] as const,
    registers,
    collect() {
      for (const [table, at] of fetchedAt) this.set({ table }, Math.max(0, (now() - at) / 1000));
    },
  });
  return { gauge, fetchedAt };
}

/**
 * Seconds until the reporting sign-in is tried again after a failure (0: not
 * backing off). Read at scrape time from the token provider, so it counts
 * down by itself; `source.read` is set by Metrics.watchSignInBackoff.
 */
function signInBackoffGauge(name: string, registers: Registry[]) {
  const source = { read: (): number => 0 };
  const gauge = new Gauge({
    name,
    help: 'Seconds until the reporting API sign-in is tried again after a refused or failed sign-in (0 when not backing off)',
    registers,
    collect() {
      this.set(source.read());
    },
  });
  return { gauge, source };
}

export type Instruments = ReturnType<typeof createInstruments>;
