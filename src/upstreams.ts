import { SharedTokenProvider } from './auth/sharedTokenProvider';
import { TokenProvider } from './auth/tokenProvider';
import { dashboardTtlSeconds } from './dashboard/cacheTtl';
import type { Fetched } from './datasources/fetched';
import { RecommenderAPI, RENDER_PATH, findRenderShapeProblem } from './datasources/recommenderAPI';
import { DASHBOARD_QUERY_PATH, ReportingAPI, findDashboardShapeProblem } from './datasources/reportingAPI';
import { SIGN_IN_PATH, createSignIn } from './datasources/signIn';
import type { DashboardMetricResultWire, DashboardQueryBody, RecommendationWire, RenderParams } from './datasources/wire';
import { createAgent } from './http/agent';
import { createHttpClient, type JsonRequest } from './http/httpClient';
import type { Logger } from './logger';
import { RedisAnswerStore } from './redis/redisAnswerStore';
import { RedisBudgetStore } from './redis/redisBudgetStore';
import type { SharedRedis } from './redis/sharedRedis';
import type { Metrics } from './metrics/metrics';
import { upstreamEventMetrics } from './metrics/upstreamEvents';
import { upstreamMetricsObserver } from './metrics/upstreamObserver';
import type { Secret } from './secret';
import { createBreaker } from './upstream/breaker';
import { MemoryBudgetStore } from './upstream/budgetStore';
import { protectEndpoint } from './upstream/callPath';
import { emitter } from './upstream/events';
import { createGovernedHttpClient } from './upstream/governedHttpClient';
import { Governor, type Budget } from './upstream/governor';
import { dashboardAnswerKey, renderAnswerKey } from './upstream/keys';
import { MemoryAnswerStore } from './upstream/memoryAnswerStore';
import { DEFAULT_BREAKER_FAILURE_THRESHOLD, DEFAULT_PROTECTION, type ProtectionOptions } from './upstream/protection';

export interface UpstreamsOptions {
  reportingBaseUrl: string;
  recommenderUrl: string;
  email: string;
  password: Secret;
  timeoutMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Sockets per upstream origin. Default DEFAULT_CONNECTIONS_PER_ORIGIN (agent.ts). */
  maxConnectionsPerOrigin?: number;
  /** Cache, governor and breaker settings. Default: DEFAULT_PROTECTION (the embedded emulator's budgets). */
  protection?: Partial<ProtectionOptions>;
  /** Set when replicas share the token, the answer cache and the budgets through Redis (REDIS_URL). */
  redis?: SharedRedis;
  /** Upstream calls, sign-ins, token renewals and the call path's events (cache, governor, breaker) are recorded here when given. */
  metrics?: Metrics;
}

/** Longest a replica waits for another replica fetching the same answer before it fetches itself. */
const FILL_WAIT_CAP_MS = 10_000;

/** What the reporting datasource needs from a token holder: in process, or shared through Redis. */
export type TokenSource = Pick<TokenProvider, 'getToken' | 'renew'>;

export interface Upstreams {
  /** The dashboard query, protected: cached, coalesced, governed, behind a circuit breaker. */
  reporting: Pick<ReportingAPI, 'query'>;
  /** render.json, protected the same way. */
  recommender: Pick<RecommenderAPI, 'render'>;
  tokens: TokenSource;
  /** Closes the connection pool; in-flight requests finish first. */
  close(): Promise<void>;
}

/**
 * The process-wide half of the upstream access: one connection pool, one
 * token, one answer cache and one budget for every GraphQL request. Shared
 * state is keyed by everything that changes an answer (upstream/keys.ts),
 * which is what makes sharing it safe; per-request loaders are built elsewhere.
 */
export function createUpstreams(options: UpstreamsOptions): Upstreams {
  const protection: ProtectionOptions = { ...DEFAULT_PROTECTION, ...options.protection };
  const now = protection.now ?? Date.now;
  const metrics = options.metrics;
  // The call path's events become metrics when metrics are on; a sink given in the options (tests) wins.
  const onEvent = emitter(protection.onEvent ?? (metrics === undefined ? undefined : upstreamEventMetrics(metrics)));
  const agent = createAgent({ connections: options.maxConnectionsPerOrigin });
  const redis = options.redis;
  const localBudgets = new MemoryBudgetStore();
  const governor = new Governor({
    store: protection.budgets ?? (redis === undefined ? localBudgets : new RedisBudgetStore(redis, localBudgets, now)),
    queueTimeoutMs: protection.governor.queueTimeoutMs,
    now,
    sleep: protection.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    onEvent,
  });
  const http = createGovernedHttpClient({
    http: createHttpClient({
      dispatcher: agent,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
      ...(metrics === undefined ? {} : { observer: upstreamMetricsObserver(metrics) }),
    }),
    governor,
    budgetOf: budgetsFor(options, protection.governor),
    deadlineMs: options.timeoutMs,
    now,
    onEvent,
  });
  const signIn = createSignIn({ baseUrl: options.reportingBaseUrl, email: options.email, password: options.password, http });
  const loggedSignIn = withSignInLogging(signIn, options.logger, metrics);
  const tokens: TokenSource =
    redis === undefined
      ? new TokenProvider({
          signIn: loggedSignIn,
          onSignIn: (reason) => {
            if (reason !== 'initial') metrics?.recordTokenRenewal(reason);
          },
        })
      : // The renewal lock outlives the longest sign-in (its timeout, plus time to wait for its budget).
        new SharedTokenProvider({ signIn: loggedSignIn, redis, lockMs: options.timeoutMs + protection.governor.queueTimeoutMs + 1_000 });
  const reporting = new ReportingAPI({ baseUrl: options.reportingBaseUrl, tokens, http, now });
  const recommender = new RecommenderAPI({ baseUrl: options.recommenderUrl, http, now });
  const localAnswers = new MemoryAnswerStore(protection.now === undefined ? {} : { now });
  const answers =
    protection.answers ??
    (redis === undefined
      ? localAnswers
      : // Waiting for another replica's fetch is bounded well below an operation's patience.
        new RedisAnswerStore(redis, localAnswers, { fillWaitMs: Math.min(options.timeoutMs, FILL_WAIT_CAP_MS) }));
  const staleIfErrorMs = protection.cache.staleIfErrorSeconds * 1000;
  const breaker = (service: 'reporting' | 'recommender', endpoint: string) =>
    createBreaker({
      service,
      endpoint,
      cooldownMs: protection.breaker.cooldownSeconds * 1000,
      failureThreshold: protection.breaker.failureThreshold ?? DEFAULT_BREAKER_FAILURE_THRESHOLD,
      onEvent,
    });

  const query = protectEndpoint<DashboardQueryBody, DashboardMetricResultWire[]>({
    service: 'reporting',
    endpoint: DASHBOARD_QUERY_PATH,
    keyOf: (body) => dashboardAnswerKey(options.email, body),
    policyOf: (body, nowMs) => ({
      ttlMs: dashboardTtlSeconds(body.dates, nowMs, protection.cache.dashboardTtlSeconds) * 1000,
      staleIfErrorMs,
    }),
    isAnswer: (value, body): value is DashboardMetricResultWire[] => findDashboardShapeProblem(value, body) === undefined,
    store: answers,
    breaker: breaker('reporting', DASHBOARD_QUERY_PATH),
    fetch: (body) => reporting.query(body),
    now,
    onEvent,
  });
  const render = protectEndpoint<RenderParams, RecommendationWire[]>({
    service: 'recommender',
    endpoint: RENDER_PATH,
    keyOf: renderAnswerKey,
    policyOf: () => ({ ttlMs: protection.cache.renderTtlSeconds * 1000, staleIfErrorMs }),
    isAnswer: (value): value is RecommendationWire[] =>
      findRenderShapeProblem({ type: 'RecommenderExperienceResponse', recommendation: value }) === undefined,
    store: answers,
    breaker: breaker('recommender', RENDER_PATH),
    fetch: (params) => recommender.render(params),
    now,
    onEvent,
  });
  return {
    reporting: { query: (body): Promise<Fetched<DashboardMetricResultWire[]>> => query(body) },
    recommender: { render: (params): Promise<Fetched<RecommendationWire[]>> => render(params) },
    tokens,
    close: () => agent.close(),
  };
}

/**
 * The budgets the upstream counts: the reporting API per account (the API
 * user), sign-in per email, render.json per client address — ours, so one
 * bucket per recommender host.
 */
function budgetsFor(options: UpstreamsOptions, rates: ProtectionOptions['governor']): (request: JsonRequest) => Budget | undefined {
  return (request) => {
    if (request.endpoint === SIGN_IN_PATH) return { name: 'signin', key: options.email, perMinute: rates.signinPerMinute };
    if (request.service === 'reporting') return { name: 'reporting', key: options.email, perMinute: rates.reportingPerMinute };
    return { name: 'render', key: request.url.host, perMinute: rates.renderPerMinute };
  };
}

/** Sign-ins are rare (about every two weeks) and budget-limited, so each one is worth a log line; the token never is. */
function withSignInLogging(
  signIn: () => Promise<string>,
  logger: Pick<Logger, 'info' | 'warn'>,
  metrics: Pick<Metrics, 'recordSignIn'> | undefined,
): () => Promise<string> {
  return async () => {
    try {
      const token = await signIn();
      metrics?.recordSignIn('ok');
      logger.info({ upstream: 'reporting' }, 'signed in to the reporting API');
      return token;
    } catch (error) {
      metrics?.recordSignIn('failed');
      logger.warn({ upstream: 'reporting', error: error instanceof Error ? error.message : String(error) }, 'reporting API sign-in failed');
      throw error;
    }
  };
}
