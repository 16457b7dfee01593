import type { Config } from './config';
import type { RecommenderAPI } from './datasources/recommenderAPI';
import type { ReportingAPI } from './datasources/reportingAPI';
import { createRecommendationsLoader, type RecommendationsLoader } from './loaders/recommendations';
import { budgetedReporting } from './limits/budgetedReporting';
import { UpstreamBudget } from './limits/upstreamBudget';
import type { Logger } from './logger';
import type { Metrics } from './metrics/metrics';

/** What every resolver receives (codegen `contextType`). Built per GraphQL request. */
export interface Context {
  /** Process-wide: it holds only the service account's token, never caller data. */
  reporting: Pick<ReportingAPI, 'query'>;
  /** Per request: its cache holds what this caller asked for. */
  recommendations: RecommendationsLoader;
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
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
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
  return {
    reporting: budgetedReporting(shared.reporting, budget),
    recommendations: createRecommendationsLoader(shared.recommender, {
      maxConcurrency: shared.renderMaxConcurrency,
      budget,
      ...(metrics === undefined ? {} : { onBatch: (size: number) => metrics.recordBatch('recommendations', size) }),
    }),
    cacheTtls: shared.cacheTtls,
    logger: shared.logger,
    budget,
  };
}
