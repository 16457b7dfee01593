import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { Config, LimitsConfig } from '../config';
import type { Services } from './services';
import { createContext, type CacheTtls, type Context, type SharedDependencies } from '../operation/context';
import { formatError } from '../graphql/errors';
import { createHealthRoutes, type Lifecycle, type ReadinessDetails } from './health';
import { watchEventLoopLag } from '../observability/eventLoopLag';
import { createDocumentCache } from '../graphql/limits/documentCache';
import type { PersistedManifest } from '../graphql/limits/persistedManifest';
import { persistedOnlyPlugin } from '../graphql/limits/persistedOnlyPlugin';
import { limitValidationRules } from '../graphql/limits/validationRules';
import { metricsHandler } from '../observability/metrics/handler';
import { operationPlugin } from '../graphql/operationPlugin';
import { responseCachePlugin } from '../graphql/responseCache/responseCachePlugin';
import { cacheControlPlugins } from '../graphql/responseCache/cacheControlPlugin';
import { buildSchema } from '../graphql/subgraphSchema';
import { metricRuleOf } from '../graphql/access/metricRule';
import type { Caller } from '../auth/callers/caller';
import { CallerGate } from './callerGate';
import { allowedOrigins, createCorsPolicy } from './cors';
import { explorerAssetRoutes } from './explorer/assets';
import { landingPageHeaders, landingPagePlugin } from './explorer/landingPage';
import { createGraphQLHandler } from './graphqlHandler';
import { createHttpServer } from './httpServer';
import type { RouteHandler } from './respond';
import { createRouter } from './router';
import type { SubscriptionGate } from './subscriptions/gate';
import { callerSubscriptionGate } from './subscriptions/callerSubscriptionGate';

export type { RouteHandler } from './respond';

/** The settings the server reads, every one required: their defaults live in src/config/ (tests: test/support/config.ts). */
export type ServerConfig = Pick<
  Config,
  | 'production'
  | 'renderMaxConcurrency'
  | 'analytics'
  | 'corsOrigins'
  | 'limits'
  | 'reportingMaxRows'
  | 'responseCacheEnabled'
  | 'shutdownDelaySeconds'
  | 'httpTimeouts'
  | 'landingPage'
  | 'schemaAuthorizationDirectives'
  | 'governor'
  | 'callerAuth'
  | 'subscriptions'
  | 'readiness'
> & { cache: CacheTtls };

/** What the server is given besides the process-wide services (src/app/composeServices.ts): facts it shows and checks. */
export interface ServerDependencies {
  /** Where shared state lives now (`shared`, `partial` or `degraded`), shown by /health/ready; unset when Redis is not configured. */
  redisMode?: () => string;
  /** More named facts for /health/ready's JSON (e.g. a sign-in backoff state); they never make it 503. */
  readinessDetails?: ReadinessDetails;
  /** Required when limits.persistedQueriesOnly is on (loaded at start-up from PERSISTED_QUERIES_MANIFEST). */
  persistedManifest?: PersistedManifest;
  /** Subscriptions: who may open a WebSocket (src/web/subscriptions/gate.ts); default CALLER_AUTH's gate, as for HTTP (tests may put their own). */
  subscriptionGate?: SubscriptionGate<Caller>;
}

export interface ServerOptions {
  /**
   * More routes, path → handler (e.g. `/metrics`), served beside `/graphql`
   * and the health checks. A path already taken is a start-up error.
   */
  extraRoutes?: Record<string, RouteHandler>;
  /** Waits out the shutdown delay (tests pass one they settle by hand). */
  sleep?: (ms: number) => Promise<unknown>;
}

export interface BuiltServer {
  /** Not listening. The caller listens, so tests can pick port 0 and a host. */
  httpServer: Server;
  apollo: ApolloServer<Context>;
  lifecycle(): Lifecycle;
  /** A fresh per-request context, as the /graphql route builds for each request (for executeOperation); default caller: unverified, every scope and site. */
  createContext(caller?: Caller): Context;
  /** The proofs /graphql requires, for the start-up log (`none`, or e.g. `router-secret, jwt`). */
  callerProofs: string;
  /** `/health/live` and `/health/ready`, as this server answers them: also served on METRICS_PORT when set. */
  healthRoutes: Readonly<Record<string, RouteHandler>>;
  /** Starts Apollo and opens /graphql; readiness turns 200 afterwards. */
  start(): Promise<void>;
  /**
   * Readiness turns 503 while GraphQL keeps serving for the shutdown delay;
   * then Apollo stops: the HTTP server stops accepting and in-flight requests finish.
   */
  stop(): Promise<void>;
}

/** Room for a router's large `_entities` batches; far more than any hand-written operation needs. */
const BODY_LIMIT_BYTES = 1024 * 1024;
/** How long stop() lets in-flight operations finish before cutting connections. */
const DRAIN_GRACE_MS = 10_000;
const GRAPHQL_PATH = '/graphql';

/**
 * The HTTP server around the subgraph: node:http and Apollo, no web framework. It holds no per-caller state,
 * and builds no process-wide service: it serves the ones it is given, and whoever composed them closes them.
 */
export function buildServer(
  config: ServerConfig,
  services: Services,
  deps: ServerDependencies = {},
  options: ServerOptions = {},
): BuiltServer {
  let state: Lifecycle = 'starting';
  const readiness = { ...(deps.redisMode === undefined ? {} : { redis: deps.redisMode }), ...deps.readinessDetails };
  // Sampled from the start (a loop already lagging at start-up is not ready either); stopped with the server.
  const lag = watchEventLoopLag(config.readiness);
  const healthRoutes = createHealthRoutes(() => state, readiness, lag);
  const routes = new Map<string, RouteHandler>(Object.entries(healthRoutes));
  const onError = (error: unknown) => services.logger.error({ err: error }, 'unexpected error outside GraphQL execution');
  const httpServer = createHttpServer(
    createRouter(routes, onError, () => state === 'stopping'),
    config.httpTimeouts,
  );
  const { limits } = config;
  const { live, metrics } = services;
  // Built once: Apollo serves it, and the callers' read path takes what each metric needs from it (metricRuleOf).
  const schema = buildSchema({ authorizationDirectivesInSdl: config.schemaAuthorizationDirectives });
  const apollo = createApollo(config, limits, services, deps, httpServer, live.plugins(), schema);
  const { renderTtlSeconds, dashboardTtlSeconds } = config.cache;
  const shared: SharedDependencies = {
    reportingService: services.reporting,
    recommender: services.recommender,
    logger: services.logger,
    now: () => services.clock.now(),
    observer: services.observer,
    live: live.live,
    renderMaxConcurrency: config.renderMaxConcurrency,
    cacheTtls: { renderTtlSeconds, dashboardTtlSeconds },
    analytics: config.analytics,
    maxUpstreamCallsPerOperation: limits.maxUpstreamCallsPerOperation,
    reportingMaxRows: config.reportingMaxRows,
    metricRule: metricRuleOf(schema),
  };
  const context = async (caller: Caller) => createContext(shared, caller);
  const gate = new CallerGate(config.callerAuth, { logger: services.logger });
  const graphql = createGraphQLHandler({
    apollo,
    context,
    gate,
    cors: createCorsPolicy(allowedOrigins(config.production, config.corsOrigins)),
    bodyLimitBytes: BODY_LIMIT_BYTES,
    landingPageHeaders: landingPageHeaders(config.landingPage),
    onError,
  });
  const metricsRoute: Record<string, RouteHandler> = metrics === undefined ? {} : { '/metrics': metricsHandler(metrics.registry) };
  const landingPage = config.landingPage;
  const explorerRoutes = landingPage === 'offline' ? explorerAssetRoutes() : {};
  addRoutes(routes, { ...metricsRoute, ...explorerRoutes, ...options.extraRoutes });
  live.attach({
    httpServer,
    path: GRAPHQL_PATH,
    apollo,
    // CALLER_AUTH for sockets from the same gate as HTTP: each subscription runs as the caller its connection admitted.
    contextFor: (caller) => createContext(shared, caller),
    gate: deps.subscriptionGate ?? callerSubscriptionGate(gate),
    formatError: (error) => formatError(error.toJSON(), error, { production: config.production }),
    refusing: () => state !== 'ready',
  });

  return {
    httpServer,
    apollo,
    lifecycle: () => state,
    createContext: (caller) => createContext(shared, caller),
    callerProofs: gate.describe(),
    healthRoutes,
    async start() {
      await apollo.start();
      // Only now: before Apollo runs, /graphql is an unknown path (404) like any other.
      routes.set(GRAPHQL_PATH, graphql);
      // A SIGTERM while Apollo was starting wins: readiness stays 503 for the drain.
      if (state === 'starting') state = 'ready';
    },
    async stop() {
      state = 'stopping';
      // SHUTDOWN_DELAY_SECONDS: load balancers and Kubernetes stop routing here first, while readiness is 503.
      const delayMs = config.shutdownDelaySeconds * 1000;
      if (delayMs > 0) await (options.sleep ?? sleep)(delayMs);
      await apollo.stop();
      lag.stop();
    },
  };
}

function createApollo(
  config: ServerConfig,
  limits: LimitsConfig,
  services: Services,
  deps: ServerDependencies,
  httpServer: Server,
  subscriptionPlugins: ApolloServerPlugin<Context>[],
  schema: GraphQLSchema,
): ApolloServer<Context> {
  // APQ and the response cache: in Redis when replicas share state, so a query registered (or a response
  // stored) on one serves all. Otherwise in process (composed as Apollo would), so both get the same one.
  const cache = services.apolloCache;
  return new ApolloServer<Context>({
    schema,
    logger: services.logger,
    cache,
    // formatError ends with the responses' redaction.
    formatError: (formatted, error) => formatError(formatted, error, { production: config.production }),
    includeStacktraceInErrorResponses: !config.production,
    // Signals belong to src/web/shutdown.ts: Apollo's own handler would stop at once (no drain delay) and re-raise the signal.
    stopOnTerminationSignals: false,
    introspection: !config.production,
    // No `Did you mean "recommendations"?` for strangers: introspection is off there too.
    hideSchemaDetailsFromClientErrors: config.production,
    validationRules: limitValidationRules(limits),
    parseOptions: { maxTokens: limits.maxTokens },
    documentStore: limits.documentCacheBytes === 0 ? null : createDocumentCache(limits.documentCacheBytes),
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: DRAIN_GRACE_MS }),
      landingPagePlugin(config.landingPage),
      ...(limits.persistedQueriesOnly
        ? [persistedOnlyPlugin(requireManifest(deps.persistedManifest), (code) => services.observer.limitRefused(code))]
        : []),
      operationPlugin({ observer: services.observer, now: () => performance.now() }),
      // Every root field and every object field without a hint counts as maxAge 0 (uncacheable): each
      // cacheable field says so in the schema (@cacheControl) or its resolver (TTLs from config).
      ...cacheControlPlugins(0),
      // Reads the policy the plugin above computes: stores public, error-free responses for their max-age.
      ...(config.responseCacheEnabled === false ? [] : [responseCachePlugin(cache)]),
      // Subscriptions (docs/subscriptions.md): WebSocket ones through this pipeline, Apollo's callback protocol, their drain.
      ...subscriptionPlugins,
    ],
  });
}

function addRoutes(routes: Map<string, RouteHandler>, extra: Record<string, RouteHandler>): void {
  for (const [path, handler] of Object.entries(extra)) {
    if (routes.has(path) || path === GRAPHQL_PATH) throw new Error(`route ${path} is already served`);
    if (!path.startsWith('/')) throw new Error(`route ${path} must start with /`);
    routes.set(path, handler);
  }
}

function requireManifest(manifest: PersistedManifest | undefined): PersistedManifest {
  if (manifest === undefined) throw new Error('PERSISTED_QUERIES_ONLY is on but no persisted operations manifest was loaded');
  return manifest;
}
