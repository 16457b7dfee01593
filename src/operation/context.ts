import { AnalyticsMemo } from '../reporting/analytics/operationMemo';
import { AnalyticsTables, type AskOutcome } from '../reporting/tables/analyticsTables';
import { upstreamMetricsObserver } from '../observability/metrics/upstreamObserver';
import { SYSTEM_CLOCK, type Clock } from '../reporting/tables/clock';
import { DashboardAsks } from '../reporting/dashboard/dashboardAsks';
import { BudgetQueue } from '../reporting/budgetQueue';
import { MemoryTableStore, type TableStore } from '../reporting/tables/tableStore';
import type { AnalyticsBoard } from '../reporting/tables/analyticsBoard';
import type { AnalyticsConfig, Config } from '../config';
import type { RenderParams } from '../upstream/datasources/wire';
import { createArticleMetricsLoader, type ArticleMetricsLoader } from './loaders/articleMetrics';
import { createRecommendationsLoader, type RecommendationsLoader } from './loaders/recommendations';
import { countingCacheHits } from './cacheHits';
import { withDashboardAllowance } from './dashboardAllowance';
import { UpstreamAllowance } from './upstreamAllowance';
import type { Logger } from '../observability/logger';
import { Metrics } from '../observability/metrics/metrics';
import type { DashboardEndpoint } from '../upstream/endpoints/dashboard';
import type { RenderEndpoint } from '../upstream/endpoints/render';

/** What every resolver receives (codegen `contextType`). Built per GraphQL request. */
export interface Context {
  /**
   * The protected dashboard endpoint, taking from this operation's allowance; identical queries share one answer,
   * queries of the operation that differ only in metrics one upstream query, and so do those of every operation
   * while they wait for the next unit (until `analyticsDeadline`).
   */
  reporting: DashboardEndpoint;
  /** Per request: its cache holds what this caller asked for. */
  recommendations: RecommendationsLoader;
  /** Per request: every `Article.analytics` of the operation joins its batches. */
  articleMetrics: ArticleMetricsLoader;
  /** Process-wide: the analytics tables every operation's asks are answered from. */
  analyticsTables: AnalyticsTables;
  /** When this operation's asks stop waiting for a unit (epoch ms): its start plus ANALYTICS_ASK_DEADLINE_MS. */
  analyticsDeadline: number;
  /** How each analytics ask of this operation was answered, in order (for the operation log). */
  askOutcomes: AskOutcome[];
  recordAsk(outcome: AskOutcome): void;
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
  /** Clock of the ask deadlines and of the cache hints; tests pin it. Default Date.now. */
  now?: () => number;
  /** The process's analytics tables; built once per SharedDependencies when absent (tests inject one on a fake clock). */
  analyticsTables?: AnalyticsTables;
  /** Where those tables live: shared by the replicas through Redis (REDIS_URL); default this process's memory. */
  tableStore?: TableStore;
  /** What the replicas share besides the tables (waiting asks, demand, learned plan) through Redis; default none. */
  analyticsBoard?: AnalyticsBoard;
  /** Dashboard asks in the budget queue; built once per SharedDependencies when absent, in the tables' queue (tests inject one on a fake clock). */
  dashboardAsks?: DashboardAsks;
  /** MAX_UPSTREAM_CALLS_PER_OPERATION. */
  maxUpstreamCallsPerOperation: number;
  /** REPORTING_MAX_ROWS. */
  reportingMaxRows: number;
  /** UPSTREAM_QUEUE_TIMEOUT_MS: how long before the next unit a waiting dashboard query may go (the governor holds it until then). */
  dashboardUnitLeadMs: number;
  /** `registry` (optional) carries the analytics tables' series too. */
  metrics?: Pick<Metrics, 'recordBatch'> & Partial<Pick<Metrics, 'registry'>>;
}

/**
 * Called once per GraphQL request. Loaders are created here and only here:
 * a module-level loader would serve one caller's cached answers to the next.
 */
export function createContext(shared: SharedDependencies): Context {
  const now = shared.now ?? Date.now;
  const maxRows = shared.reportingMaxRows;
  const allowance = new UpstreamAllowance(shared.maxUpstreamCallsPerOperation);
  const metrics = shared.metrics;
  const tables = analyticsTablesOf(shared, maxRows);
  const analyticsDeadline = now() + shared.analytics.askDeadlineMs;
  const reporting = withDashboardAllowance(dashboardAsksOf(shared, tables).asker(analyticsDeadline), allowance);
  const askOutcomes: AskOutcome[] = [];
  const recommender: RenderEndpoint = { render: countingCacheHits((params: RenderParams) => shared.recommender.render(params), allowance) };
  return {
    reporting,
    recommendations: createRecommendationsLoader(recommender, {
      maxConcurrency: shared.renderMaxConcurrency,
      allowance,
      ...(metrics === undefined ? {} : { onBatch: (size: number) => metrics.recordBatch('recommendations', size) }),
    }),
    articleMetrics: createArticleMetricsLoader({ tables, deadline: analyticsDeadline }),
    analyticsTables: tables,
    analyticsDeadline,
    askOutcomes,
    recordAsk: (outcome) => askOutcomes.push(outcome),
    now,
    analyticsMemo: new AnalyticsMemo(),
    cacheTtls: shared.cacheTtls,
    logger: shared.logger,
    allowance,
    maxRows,
  };
}

/** One set of dashboard asks per set of shared dependencies (one server): asks of every operation meet in its budget queue. */
const dashboardAsksByShared = new WeakMap<SharedDependencies, DashboardAsks>();

function dashboardAsksOf(shared: SharedDependencies, tables: AnalyticsTables): DashboardAsks {
  if (shared.dashboardAsks !== undefined) return shared.dashboardAsks;
  let asks = dashboardAsksByShared.get(shared);
  if (asks === undefined) {
    // The process-wide endpoint: a merged query is every waiting operation's; each operation's allowance counts its own bodies.
    // The tables' queue: one queue for the reporting budget, one order between dashboards and tables.
    asks = new DashboardAsks({
      queue: tables.queue,
      dashboard: shared.reporting,
      clock: clockOf(shared),
      unitLeadMs: shared.dashboardUnitLeadMs,
    });
    dashboardAsksByShared.set(shared, asks);
  }
  return asks;
}

function clockOf(shared: SharedDependencies): Clock {
  return shared.now === undefined ? SYSTEM_CLOCK : { now: shared.now, sleep: SYSTEM_CLOCK.sleep };
}

/** One set of tables per set of shared dependencies (one server): built on first use, process-wide from then on. */
const tablesByShared = new WeakMap<SharedDependencies, AnalyticsTables>();

function analyticsTablesOf(shared: SharedDependencies, maxRows: number): AnalyticsTables {
  if (shared.analyticsTables !== undefined) return shared.analyticsTables;
  let tables = tablesByShared.get(shared);
  if (tables === undefined) {
    const clock = clockOf(shared);
    tables = new AnalyticsTables({
      // The one queue for the reporting budget, which the dashboards' asks join (dashboardAsksOf).
      queue: new BudgetQueue({
        reporting: shared.reporting,
        clock,
        outsideShare: shared.analytics.coldShare,
        // The one observer implementation: the queue's events become the analytics series of the process's metrics.
        ...(shared.metrics instanceof Metrics ? { observer: upstreamMetricsObserver(shared.metrics) } : {}),
      }),
      // The process-wide endpoint: a table is every operation's, so no operation's allowance pays for it.
      reporting: shared.reporting,
      store: shared.tableStore ?? new MemoryTableStore(),
      shared: shared.tableStore !== undefined,
      ...(shared.analyticsBoard === undefined ? {} : { board: shared.analyticsBoard }),
      clock: clockOf(shared),
      ttlSeconds: shared.cacheTtls.dashboardTtlSeconds,
      maxStalenessSeconds: shared.analytics.maxStalenessSeconds,
      windowAlignSeconds: shared.analytics.windowAlignSeconds,
      maxRows,
      maxNarrowedUrls: shared.analytics.chunkSize,
      outsideShare: shared.analytics.coldShare,
    });
    tablesByShared.set(shared, tables);
  }
  return tables;
}
