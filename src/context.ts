import { AnalyticsMemo } from './analytics/operationMemo';
import { alignInstant } from './analytics/window';
import type { AnalyticsConfig, Config } from './config';
import type { RecommenderAPI } from './datasources/recommenderAPI';
import type { ReportingAPI } from './datasources/reportingAPI';
import type { RenderParams } from './datasources/wire';
import { createArticleMetricsLoader, type ArticleMetricsLoader } from './loaders/articleMetrics';
import { createRecommendationsLoader, type RecommendationsLoader } from './loaders/recommendations';
import { budgetedReporting } from './limits/budgetedReporting';
import { countingCacheHits } from './limits/cacheHits';
import { UpstreamBudget } from './limits/upstreamBudget';
import type { Logger } from './logger';
import type { Metrics } from './metrics/metrics';

/** What every resolver receives (codegen `contextType`). Built per GraphQL request. */
export interface Context {
  /** Process-wide: it holds only the service account's token, never caller data. */
  reporting: Pick<ReportingAPI, 'query'>;
  /** Per request: its cache holds what this caller asked for. */
  recommendations: RecommendationsLoader;
  /** Per request: every `Article.analytics` of the operation joins its batches. */
  articleMetrics: ArticleMetricsLoader;
  /**
   * The operation's instant (epoch ms, rounded down to ANALYTICS_WINDOW_ALIGN_SECONDS),
   * captured once: every relative window of the operation ends here.
   */
  operationInstant: number;
  /** Per request: window and selection readings shared by every article of the operation. */
  analyticsMemo: AnalyticsMemo;
  /** The answer TTLs, which the resolvers turn into cache hints for the response's `cache-control` header. */
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Per request: the upstream calls this operation may still make; every loader takes from it. */
  budget: UpstreamBudget;
}

/** Default of MAX_UPSTREAM_CALLS_PER_OPERATION. */
const DEFAULT_MAX_UPSTREAM_CALLS = 50;

export type CacheTtls = Pick<Config['cache'], 'renderTtlSeconds' | 'dashboardTtlSeconds'>;

/** The process-wide pieces every request's context is built from. */
export interface SharedDependencies {
  reporting: Pick<ReportingAPI, 'query'>;
  recommender: Pick<RecommenderAPI, 'render'>;
  renderMaxConcurrency: number;
  analytics: AnalyticsConfig;
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Clock of `operationInstant`; tests pin it. */
  now?: () => number;
  /** MAX_UPSTREAM_CALLS_PER_OPERATION; DEFAULT_MAX_UPSTREAM_CALLS when absent. */
  maxUpstreamCallsPerOperation?: number;
  metrics?: Pick<Metrics, 'recordBatch'>;
}

/**
 * Called once per GraphQL request. Loaders are created here and only here:
 * a module-level loader would serve one caller's cached answers to the next.
 */
export function createContext(shared: SharedDependencies): Context {
  const budget = new UpstreamBudget(shared.maxUpstreamCallsPerOperation ?? DEFAULT_MAX_UPSTREAM_CALLS);
  const metrics = shared.metrics;
  const reporting = budgetedReporting({ query: countingCacheHits((body) => shared.reporting.query(body), budget) }, budget);
  const recommender = { render: countingCacheHits((params: RenderParams) => shared.recommender.render(params), budget) };
  return {
    reporting,
    recommendations: createRecommendationsLoader(recommender, {
      maxConcurrency: shared.renderMaxConcurrency,
      budget,
      ...(metrics === undefined ? {} : { onBatch: (size: number) => metrics.recordBatch('recommendations', size) }),
    }),
    articleMetrics: createArticleMetricsLoader(reporting, { chunkSize: shared.analytics.chunkSize }),
    operationInstant: alignInstant((shared.now ?? Date.now)(), shared.analytics.windowAlignSeconds),
    analyticsMemo: new AnalyticsMemo(),
    cacheTtls: shared.cacheTtls,
    logger: shared.logger,
    budget,
  };
}
