import { RENDER_PATH, RecommenderAPI } from './datasources/recommenderAPI';
import { DASHBOARD_QUERY_PATH, ReportingAPI } from './datasources/reportingAPI';
import { SIGN_IN_PATH } from '../kernel/wire';
import { createAgent } from './transport/agent';
import { createHttpClient, type HttpClient, type JsonRequest } from './transport/httpClient';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics/metrics';
import type { Secret } from '../redaction/secret';
import { createBreaker } from './stages/breaker';
import { createDashboardEndpoint, type BudgetedDashboard, type DashboardEndpoint, type SlotBudget } from './endpoints/dashboard';
import { createRenderEndpoint, type RenderEndpoint } from './endpoints/render';
import { createSignInEndpoint } from './endpoints/signIn';
import { createTokenSource, type TokenSource } from './endpoints/tokenSource';
import { safeObserver, type Observer } from '../kernel/observer';
import { httpPath, reportingHttpPath } from './pipeline';
import { DeadlineTicks } from './transport/deadlines';
import { Governor, type Rate } from './stages/governor';
import { MemoryAnswerStore } from './stores/memoryAnswerStore';
import type { UpstreamStores } from './stores/upstreamStores';
import type { ProtectionOptions } from './protection';
import { UPSTREAM_PATH_DEFAULTS, type UpstreamPathSettings } from '../config/upstreamPath';

/**
 * Complete: every value comes from the configuration (`upstreamPathSettings`,
 * src/config/upstreamPath.ts, where each default is written once); tests
 * build theirs with test/support/upstreamOptions.ts.
 */
export interface UpstreamsOptions extends UpstreamPathSettings {
  reportingBaseUrl: string;
  recommenderUrl: string;
  email: string;
  password: Secret;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Cache, governor and breaker settings, and the tests' hooks (clock, observer). */
  protection: ProtectionOptions;
  /** Where the answer cache, the rates and new tokens come from: this process's, or the replicas' through Redis (REDIS_URL); chosen by src/app/composeProcess.ts. */
  stores: UpstreamStores;
  /** The process's one observer: hears every event of the call path (src/app/composeProcess.ts; tests record it). */
  observer: Observer;
  /** The sign-in backoff gauge follows the token holder when metrics are on. */
  metrics?: Pick<Metrics, 'watchSignInBackoff'>;
}

/** Longest a replica waits for another replica fetching the same answer before it fetches itself. */
const FILL_WAIT_CAP_MS = 10_000;

export interface Upstreams {
  /** The dashboard query, protected: cached, coalesced, behind a circuit breaker; its attempts granted by the budget queue from `budget`. */
  reporting: DashboardEndpoint & BudgetedDashboard;
  /** render.json, protected the same way. */
  recommender: RenderEndpoint;
  tokens: TokenSource;
  /** Closes the connection pool; in-flight requests finish first. */
  close(): Promise<void>;
}

/**
 * The composition root of the upstream access: one connection pool, one
 * token, one answer cache and one set of rates for every GraphQL request,
 * and one protected endpoint per upstream operation (render, dashboard,
 * sign-in). The stage order is written once, in pipeline.ts; this file only
 * builds the pieces. Shared state is keyed by everything that changes an
 * answer (keys.ts), which is what makes sharing it safe; per-request loaders
 * are built in context.ts.
 */
export function createUpstreams(options: UpstreamsOptions): Upstreams {
  const protection = options.protection;
  const now = protection.now ?? Date.now;
  const metrics = options.metrics;
  // A faulty observer never fails the call it reports on.
  const observer = safeObserver(options.observer);
  const agent = createAgent({ connections: options.maxConnectionsPerOrigin });
  const stores = options.stores;
  const { http, reportingBudget, close: stopWatching } = governedTransport({ options, protection, agent, now, observer });

  const signIn = createSignInEndpoint({
    baseUrl: options.reportingBaseUrl,
    email: options.email,
    password: options.password,
    http,
    logger: options.logger,
    observer,
  });
  const tokens = createTokenSource({
    signIn,
    exchange: stores.tokenExchange({
      // The renewal lock outlives the longest sign-in (its timeout, plus time to wait for its rate).
      lockMs: options.timeoutMs + protection.governor.queueTimeoutMs + 1_000,
      signInBackoff: options.signInBackoff,
      now,
    }),
    now,
    signInBackoff: options.signInBackoff,
    observer,
    ...(metrics === undefined ? {} : { metrics }),
  });
  const store = answerStore(stores, Math.min(options.timeoutMs, FILL_WAIT_CAP_MS), protection.now);
  const staleIfErrorMs = protection.cache.staleIfErrorSeconds * 1000;
  const breaker = (service: 'reporting' | 'recommender', endpoint: string) =>
    createBreaker({
      service,
      endpoint,
      cooldownMs: protection.breaker.cooldownSeconds * 1000,
      failureThreshold: protection.breaker.failureThreshold,
      now,
      observer,
    });
  const reporting = new ReportingAPI({ baseUrl: options.reportingBaseUrl, http: reportingHttpPath(tokens, http), now });
  const recommender = new RecommenderAPI({ baseUrl: options.recommenderUrl, http, now });

  return {
    reporting: {
      ...createDashboardEndpoint({
        reporting,
        account: options.email,
        store,
        breaker: breaker('reporting', DASHBOARD_QUERY_PATH),
        ttlSeconds: protection.cache.dashboardTtlSeconds,
        staleIfErrorMs,
        now,
        observer,
      }),
      // Its attempts are the budget queue's to grant: the queue spends this bucket, the governor stage only honours a 429's pause.
      budget: reportingBudget,
    },
    recommender: createRenderEndpoint({
      recommender,
      store,
      breaker: breaker('recommender', RENDER_PATH),
      ttlMs: protection.cache.renderTtlSeconds * 1000,
      staleIfErrorMs,
      now,
      observer,
    }),
    tokens,
    close: () => {
      stopWatching();
      return agent.close();
    },
  };
}

/**
 * The HTTP-level stages shared by every endpoint (pipeline.ts, `httpPath`),
 * composed once over one connection pool: retry, governor, transport.
 */
function governedTransport(parts: {
  options: UpstreamsOptions;
  protection: ProtectionOptions;
  agent: ReturnType<typeof createAgent>;
  now: () => number;
  observer: Observer;
}): { http: HttpClient; reportingBudget: SlotBudget; close: () => void } {
  const { options, protection, now, observer } = parts;
  const rates = options.stores.rates(now);
  const deadlines = new DeadlineTicks();
  const governor = new Governor({
    // The replicas' buckets through Redis, or this process's own: chosen by the composition root, never defaulted below.
    store: rates,
    queueTimeoutMs: protection.governor.queueTimeoutMs,
    now,
    sleep,
    observer,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds,
  });
  const transport = createHttpClient({
    dispatcher: parts.agent,
    timeoutMs: options.timeoutMs,
    now,
    deadlines,
    maxResponseBytes: options.maxResponseBytes,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds,
    observer,
  });
  const { rateOf, accountRates, reporting } = ratesOf(options, protection.governor);
  // One bucket each for the whole process, watched from the start (render's are per host, met as they come).
  governor.watch(accountRates);
  const http = httpPath({
    retry: { backoff: options.backoff, timeoutMs: options.timeoutMs, deadlines, sleep, logger: options.logger, observer },
    governor: { governor, rateOf, observer },
    transport,
  });
  return { http, reportingBudget: governor.bucket(reporting), close: () => rates.close?.() };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The rates the upstream counts: the reporting API per account (the API
 * user), sign-in per email, render.json per client address — ours, so one
 * bucket per recommender host.
 */
function ratesOf(
  options: UpstreamsOptions,
  rates: ProtectionOptions['governor'],
): { rateOf: (request: JsonRequest) => Rate | undefined; accountRates: Rate[]; reporting: Rate } {
  const signin: Rate = { name: 'signin', key: options.email, perMinute: rates.signinPerMinute };
  const reporting: Rate = { name: 'reporting', key: options.email, perMinute: rates.reportingPerMinute };
  return {
    rateOf: (request) => {
      if (request.endpoint === SIGN_IN_PATH) return signin;
      if (request.service === 'reporting') return reporting;
      return { name: 'render', key: request.url.host, perMinute: rates.renderPerMinute };
    },
    accountRates: [signin, reporting],
    reporting,
  };
}

/**
 * The answer cache: this process's memory, or Redis shared by every replica
 * (with this process's memory while Redis is away). Claims are for other
 * replicas only: within this process the coalescing stage already leaves one
 * filler per key, so the memory store takes none (no promise, no timer per
 * miss). Redis claims last as long as a replica waits for another's fetch:
 * bounded well below an operation's patience.
 */
function answerStore(stores: UpstreamStores, fillWaitMs: number, now: (() => number) | undefined) {
  const local = new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, ...(now === undefined ? {} : { now }) });
  return stores.answers({ local, fillWaitMs, now });
}
