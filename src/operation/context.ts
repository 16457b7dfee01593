import { AnalyticsMemo } from '../reporting/analytics/operationMemo';
import { AnalyticsTables, tableLabel, type AnalyticsTablesOptions, type AskOutcome } from '../reporting/tables/analyticsTables';
import { analyticsTableMetrics } from '../observability/metrics/analyticsTables';
import { SYSTEM_CLOCK, type Clock } from '../reporting/tables/clock';
import { DashboardWaitingRoom } from '../reporting/dashboard/waitingRoom';
import { MemoryTableStore, type TableStore } from '../reporting/tables/tableStore';
import type { AnalyticsBoard } from '../reporting/tables/analyticsBoard';
import type { TableRefreshes } from '../reporting/tables/refreshes';
import type { LiveNumbers } from '../graphql/subscriptions/liveNumbers';
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
  /** Process-wide: the Subscription fields' hub (absent where subscriptions are not served). */
  live?: LiveNumbers;
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
  /** Told of every write of the tables built here (the subscriptions' "refreshed" event); default none. */
  tableRefreshes?: TableRefreshes;
  /** The Subscription fields' hub (src/graphql/subscriptions/liveNumbers.ts). */
  live?: LiveNumbers;
  /** Where dashboard asks wait for the next unit; built once per SharedDependencies when absent (tests inject one on a fake clock). */
  dashboardWaitingRoom?: DashboardWaitingRoom;
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
  const reporting = withDashboardAllowance(dashboardWaitingRoomOf(shared).asker(analyticsDeadline), allowance);
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
    ...(shared.live === undefined ? {} : { live: shared.live }),
  };
}

/** One waiting room per set of shared dependencies (one server): asks of every operation meet there. */
const roomsByShared = new WeakMap<SharedDependencies, DashboardWaitingRoom>();

function dashboardWaitingRoomOf(shared: SharedDependencies): DashboardWaitingRoom {
  if (shared.dashboardWaitingRoom !== undefined) return shared.dashboardWaitingRoom;
  let room = roomsByShared.get(shared);
  if (room === undefined) {
    // The process-wide endpoint: a merged query is every waiting operation's; each operation's allowance counts its own bodies.
    room = new DashboardWaitingRoom({ dashboard: shared.reporting, clock: clockOf(shared), unitLeadMs: shared.dashboardUnitLeadMs });
    roomsByShared.set(shared, room);
  }
  return room;
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
    tables = new AnalyticsTables({
      // The process-wide endpoint: a table is every operation's, so no operation's allowance pays for it.
      reporting: shared.reporting,
      store: watchedStore(shared),
      shared: shared.tableStore !== undefined,
      ...(shared.analyticsBoard === undefined ? {} : { board: shared.analyticsBoard }),
      clock: clockOf(shared),
      ttlSeconds: shared.cacheTtls.dashboardTtlSeconds,
      maxStalenessSeconds: shared.analytics.maxStalenessSeconds,
      windowAlignSeconds: shared.analytics.windowAlignSeconds,
      maxRows,
      maxColdUrls: shared.analytics.chunkSize,
      coldShare: shared.analytics.coldShare,
      ...tableMetricsHooks(shared),
    });
    tablesByShared.set(shared, tables);
  }
  return tables;
}

/** The tables' store, each write told to the subscriptions (src/reporting/tables/refreshes.ts). */
function watchedStore(shared: SharedDependencies): TableStore {
  const store = shared.tableStore ?? new MemoryTableStore();
  return shared.tableRefreshes === undefined ? store : shared.tableRefreshes.watch(store);
}

function tableMetricsHooks(shared: SharedDependencies): Partial<AnalyticsTablesOptions> {
  const registry = shared.metrics?.registry;
  if (registry === undefined) return {};
  const metrics = analyticsTableMetrics(registry, shared.now ?? Date.now);
  return {
    onAnswered: (asks) => metrics.recordAnswered(asks),
    onWaiting: (count) => metrics.recordWaiting(count),
    onRefused: (reason) => metrics.recordRefusal(reason),
    onTable: (spec, fetchedAt) => metrics.recordTable(tableLabel(spec), fetchedAt),
  };
}
