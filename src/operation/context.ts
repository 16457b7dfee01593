import { AnalyticsMemo } from '../reporting/analytics/operationMemo';
import { alignInstant } from '../reporting/analytics/window';
import { DEFAULT_MAX_ROWS } from '../reporting/dashboard/validate';
import type { AnalyticsConfig, Config } from '../config';
import type { RenderParams } from '../upstream/datasources/wire';
import { createArticleMetricsLoader, type ArticleMetricsLoader } from './loaders/articleMetrics';
import { createRecommendationsLoader, type RecommendationsLoader } from './loaders/recommendations';
import { countingCacheHits } from './cacheHits';
import { withDashboardAllowance } from './dashboardAllowance';
import { UpstreamAllowance } from './upstreamAllowance';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics/metrics';
import type { DashboardEndpoint } from '../upstream/endpoints/dashboard';
import type { RenderEndpoint } from '../upstream/endpoints/render';

/** What every resolver receives (codegen `contextType`). Built per GraphQL request. */
export interface Context {
  /** The protected dashboard endpoint, taking from this operation's allowance; identical queries share one answer. */
  reporting: DashboardEndpoint;
  /** Per request: its cache holds what this caller asked for. */
  recommendations: RecommendationsLoader;
  /** Per request: every `Article.analytics` of the operation joins its batches. */
  articleMetrics: ArticleMetricsLoader;
  /**
   * The operation's instant (epoch ms, rounded down to ANALYTICS_WINDOW_ALIGN_SECONDS),
   * captured once: every relative window of the operation ends here.
   */
  operationInstant: number;
  /** The clock of this operation's time readings (cache hints); tests pin it. */
  now: () => number;
  /** Per request: window and selection readings shared by every article of the operation. */
  analyticsMemo: AnalyticsMemo;
  /** The answer TTLs, which the resolvers turn into cache hints for the response's `cache-control` header. */
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Per request: the upstream calls this operation may still make (its allowance); every loader takes from it. */
  allowance: UpstreamAllowance;
  /** REPORTING_MAX_ROWS: the most rows one dashboard query may ask for. */
  maxRows: number;
}

/** Default of MAX_UPSTREAM_CALLS_PER_OPERATION. */
const DEFAULT_MAX_UPSTREAM_CALLS = 50;

export type CacheTtls = Pick<Config['cache'], 'renderTtlSeconds' | 'dashboardTtlSeconds'>;

/** The process-wide pieces every request's context is built from. */
export interface SharedDependencies {
  /** Process-wide: it holds only the service account's token, never caller data. */
  reporting: DashboardEndpoint;
  recommender: RenderEndpoint;
  renderMaxConcurrency: number;
  analytics: AnalyticsConfig;
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Clock of `operationInstant` and of the cache hints; tests pin it. Default Date.now. */
  now?: () => number;
  /** MAX_UPSTREAM_CALLS_PER_OPERATION; DEFAULT_MAX_UPSTREAM_CALLS when absent. */
  maxUpstreamCallsPerOperation?: number;
  /** REPORTING_MAX_ROWS; DEFAULT_MAX_ROWS when absent. */
  reportingMaxRows?: number;
  metrics?: Pick<Metrics, 'recordBatch'>;
}

/**
 * Called once per GraphQL request. Loaders are created here and only here:
 * a module-level loader would serve one caller's cached answers to the next.
 */
export function createContext(shared: SharedDependencies): Context {
  const now = shared.now ?? Date.now;
  const maxRows = shared.reportingMaxRows ?? DEFAULT_MAX_ROWS;
  const allowance = new UpstreamAllowance(shared.maxUpstreamCallsPerOperation ?? DEFAULT_MAX_UPSTREAM_CALLS);
  const metrics = shared.metrics;
  const reporting = withDashboardAllowance({ query: countingCacheHits((body) => shared.reporting.query(body), allowance) }, allowance);
  const recommender: RenderEndpoint = { render: countingCacheHits((params: RenderParams) => shared.recommender.render(params), allowance) };
  return {
    reporting,
    recommendations: createRecommendationsLoader(recommender, {
      maxConcurrency: shared.renderMaxConcurrency,
      allowance,
      ...(metrics === undefined ? {} : { onBatch: (size: number) => metrics.recordBatch('recommendations', size) }),
    }),
    articleMetrics: createArticleMetricsLoader(reporting, { chunkSize: shared.analytics.chunkSize, maxRows }),
    operationInstant: alignInstant(now(), shared.analytics.windowAlignSeconds),
    now,
    analyticsMemo: new AnalyticsMemo(),
    cacheTtls: shared.cacheTtls,
    logger: shared.logger,
    allowance,
    maxRows,
  };
}
