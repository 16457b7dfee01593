import { createServer, type Server } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { DEFAULT_LIMITS, type Config, type LimitsConfig } from './config';
import { createContext, type CacheTtls, type Context, type SharedDependencies } from './context';
import { formatError } from './errors';
import { createHealthRouter, type Lifecycle } from './health';
import type { Logger } from './logger';
import { createDocumentCache } from './limits/documentCache';
import type { PersistedManifest } from './limits/persistedManifest';
import { persistedOnlyPlugin } from './limits/persistedOnlyPlugin';
import { limitValidationRules } from './limits/validationRules';
import { metricsHandler } from './metrics/handler';
import type { Metrics } from './metrics/metrics';
import { operationMetricsPlugin } from './metrics/operationMetricsPlugin';
import { operationLogPlugin } from './operationLog';
import { resolvers } from './resolvers';
import { loadTypeDefs } from './schema';

/** `limits` defaults to DEFAULT_LIMITS. */
export type ServerConfig = Pick<Config, 'production' | 'renderMaxConcurrency'> & { cache: CacheTtls; limits?: LimitsConfig };

export interface ServerDependencies {
  reporting: SharedDependencies['reporting'];
  recommender: SharedDependencies['recommender'];
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Operations are recorded and GET /metrics is served when given. */
  metrics?: Metrics;
  /** Required when limits.persistedQueriesOnly is on (loaded at start-up from PERSISTED_QUERIES_MANIFEST). */
  persistedManifest?: PersistedManifest;
}

export interface BuiltServer {
  app: Express;
  /** Wraps `app`; not listening. The caller listens, so tests can pick port 0 and a host. */
  httpServer: Server;
  apollo: ApolloServer<Context>;
  lifecycle(): Lifecycle;
  /** A fresh per-request context, as the /graphql route builds for each request (for executeOperation). */
  createContext(): Context;
  /** Starts Apollo and mounts /graphql; readiness turns 200 afterwards. */
  start(): Promise<void>;
  /** Readiness turns 503, then Apollo stops: the HTTP server stops accepting and in-flight requests finish. */
  stop(): Promise<void>;
}

/** Room for a router's large `_entities` batches; far more than any hand-written operation needs. */
const BODY_LIMIT = '1mb';
/** How long stop() lets in-flight operations finish before cutting connections. */
const DRAIN_GRACE_MS = 10_000;

/** The HTTP app around the subgraph. It never listens itself and holds no per-caller state. */
export function buildServer(config: ServerConfig, deps: ServerDependencies): BuiltServer {
  let state: Lifecycle = 'starting';
  const app = express();
  app.disable('x-powered-by');
  const httpServer = createServer(app);
  const limits = config.limits ?? DEFAULT_LIMITS;

  const apollo = new ApolloServer<Context>({
    schema: buildSubgraphSchema({ typeDefs: loadTypeDefs(), resolvers }),
    logger: deps.logger,
    formatError: (formatted, error) => formatError(formatted, error, { production: config.production }),
    includeStacktraceInErrorResponses: !config.production,
    introspection: !config.production,
    // No `Did you mean "recommendations"?` for strangers: introspection is off there too.
    hideSchemaDetailsFromClientErrors: config.production,
    validationRules: limitValidationRules(limits),
    parseOptions: { maxTokens: limits.maxTokens },
    documentStore: limits.documentCacheBytes === 0 ? null : createDocumentCache(limits.documentCacheBytes),
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: DRAIN_GRACE_MS }),
      config.production ? ApolloServerPluginLandingPageDisabled() : ApolloServerPluginLandingPageLocalDefault({ footer: false }),
      ...(limits.persistedQueriesOnly
        ? [persistedOnlyPlugin(requireManifest(deps.persistedManifest), (code) => deps.metrics?.recordLimitRefusal(code))]
        : []),
      operationLogPlugin(deps.logger),
      ...(deps.metrics === undefined ? [] : [operationMetricsPlugin(deps.metrics)]),
      // Every root field and every object field without a hint counts as maxAge 0 (uncacheable): each
      // cacheable field says so in the schema (@cacheControl) or its resolver (TTLs from config).
      ApolloServerPluginCacheControl({ defaultMaxAge: 0, calculateHttpHeaders: true }),
    ],
  });

  // Mounted now, filled by start(): routes keep their order and /graphql answers 404 until Apollo runs.
  const graphqlRouter = express.Router();
  app.use(createHealthRouter(() => state));
  if (deps.metrics !== undefined) app.all('/metrics', metricsHandler(deps.metrics.registry));
  app.use('/graphql', graphqlRouter);
  app.use((_request, response) => {
    response.status(404).json({ error: 'Not found: GraphQL is served at /graphql' });
  });
  app.use(jsonErrorHandler(config.production, deps.logger));

  const { renderTtlSeconds, dashboardTtlSeconds } = config.cache;
  const shared: SharedDependencies = {
    ...deps,
    renderMaxConcurrency: config.renderMaxConcurrency,
    cacheTtls: { renderTtlSeconds, dashboardTtlSeconds },
    maxUpstreamCallsPerOperation: limits.maxUpstreamCallsPerOperation,
  };
  return {
    app,
    httpServer,
    apollo,
    lifecycle: () => state,
    createContext: () => createContext(shared),
    async start() {
      await apollo.start();
      graphqlRouter.use(express.json({ limit: BODY_LIMIT }), expressMiddleware(apollo, { context: async () => createContext(shared) }));
      state = 'ready';
    },
    async stop() {
      state = 'stopping';
      await apollo.stop();
    },
  };
}

function requireManifest(manifest: PersistedManifest | undefined): PersistedManifest {
  if (manifest === undefined) throw new Error('PERSISTED_QUERIES_ONLY is on but no persisted operations manifest was loaded');
  return manifest;
}

/**
 * Errors outside GraphQL execution (a malformed JSON body, a body over the
 * limit) as JSON in the GraphQL error shape, instead of Express's HTML page.
 */
function jsonErrorHandler(production: boolean, logger: Pick<Logger, 'error'>): ErrorRequestHandler {
  return (error: unknown, _request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const status = httpStatusOf(error);
    if (status >= 500) logger.error({ err: error }, 'unexpected error outside GraphQL execution');
    const message = status < 500 && error instanceof Error ? error.message : 'Internal server error';
    const extensions: Record<string, unknown> = { code: status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR' };
    if (!production && status >= 500 && error instanceof Error) extensions.stacktrace = error.stack?.split('\n');
    response.status(status).json({ errors: [{ message, extensions }] });
  };
}

function httpStatusOf(error: unknown): number {
  if (typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number') {
    return error.status >= 400 && error.status < 600 ? error.status : 500;
  }
  return 500;
}
