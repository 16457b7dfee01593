import type { Config } from './config';
import type { RecommenderAPI } from './datasources/recommenderAPI';
import type { ReportingAPI } from './datasources/reportingAPI';
import { createRecommendationsLoader, type RecommendationsLoader } from './loaders/recommendations';
import type { Logger } from './logger';

/** What every resolver receives (codegen `contextType`). Built per GraphQL request. */
export interface Context {
  /** Process-wide: it holds only the service account's token, never caller data. */
  reporting: Pick<ReportingAPI, 'query'>;
  /** Per request: its cache holds what this caller asked for. */
  recommendations: RecommendationsLoader;
  /** The answer TTLs, which the resolvers turn into cache hints for the response's `cache-control` header. */
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
}

export type CacheTtls = Pick<Config['cache'], 'renderTtlSeconds' | 'dashboardTtlSeconds'>;

/** The process-wide pieces every request's context is built from. */
export interface SharedDependencies {
  reporting: Pick<ReportingAPI, 'query'>;
  recommender: Pick<RecommenderAPI, 'render'>;
  renderMaxConcurrency: number;
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
}

/**
 * Called once per GraphQL request. Loaders are created here and only here:
 * a module-level loader would serve one caller's cached answers to the next.
 */
export function createContext(shared: SharedDependencies): Context {
  return {
    reporting: shared.reporting,
    recommendations: createRecommendationsLoader(shared.recommender, { maxConcurrency: shared.renderMaxConcurrency }),
    cacheTtls: shared.cacheTtls,
    logger: shared.logger,
  };
}
