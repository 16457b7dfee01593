import type { Registry } from 'prom-client';
import type { Config } from '../config';
import { analyticsTableMetrics } from '../observability/metrics/analyticsTables';
import type { DashboardEndpoint } from '../upstream/endpoints/dashboard';
import { DashboardWaitingRoom } from './dashboard/waitingRoom';
import { AnalyticsTables, tableLabel, type AnalyticsTablesOptions } from './tables/analyticsTables';
import type { AnalyticsBoard } from './tables/analyticsBoard';
import type { Clock } from './tables/clock';
import { MemoryTableStore, type TableStore } from './tables/tableStore';

/**
 * The process's reporting service: what every operation's reporting asks
 * meet in. Built once per process (src/index.ts), handed to the context
 * factory, and closed by the shutdown step `reporting service`.
 */
export interface ReportingService {
  /** The analytics tables `Article.analytics` and `topArticles` are answered from. */
  tables: AnalyticsTables;
  /** Where dashboard asks wait for the next unit, merged with every other operation's. */
  dashboards: DashboardWaitingRoom;
  /** Stops the tables' scheduler: no refresh or waiting ask outlives the process's shutdown. */
  close(): void;
}

/**
 * The settings it reads: ANALYTICS_*, DASHBOARD_CACHE_TTL_SECONDS, REPORTING_MAX_ROWS and
 * UPSTREAM_QUEUE_TIMEOUT_MS (how long before the next unit a waiting dashboard query may go:
 * the governor holds it until then).
 */
export type ReportingServiceConfig = Pick<Config, 'analytics' | 'reportingMaxRows'> & {
  cache: Pick<Config['cache'], 'dashboardTtlSeconds'>;
  governor: Pick<Config['governor'], 'queueTimeoutMs'>;
};

export interface ReportingServiceOptions {
  /** The process-wide protected endpoint: a table or a merged query is every operation's, so no operation's allowance pays for it. */
  dashboard: Pick<DashboardEndpoint, 'query'>;
  config: ReportingServiceConfig;
  clock: Clock;
  /** Where the tables live: shared by the replicas through Redis (REDIS_URL); absent, this process's memory. */
  tableStore: TableStore | undefined;
  /** What the replicas share besides the tables (waiting asks, demand, learned plan) through Redis; absent, nothing. */
  board: AnalyticsBoard | undefined;
  /** Where the tables' series go; absent, no metrics. */
  registry: Registry | undefined;
}

/** What the analytics tables read off the configuration (tests that build tables themselves take the same). */
export type AnalyticsTablesSettings = Pick<
  AnalyticsTablesOptions,
  'ttlSeconds' | 'maxStalenessSeconds' | 'windowAlignSeconds' | 'maxRows' | 'maxColdUrls' | 'coldShare'
>;

export function analyticsTablesSettings(config: ReportingServiceConfig): AnalyticsTablesSettings {
  const { analytics } = config;
  return {
    ttlSeconds: config.cache.dashboardTtlSeconds,
    maxStalenessSeconds: analytics.maxStalenessSeconds,
    windowAlignSeconds: analytics.windowAlignSeconds,
    maxRows: config.reportingMaxRows,
    maxColdUrls: analytics.chunkSize,
    coldShare: analytics.coldShare,
  };
}

/** The one place the reporting service is composed: swap a piece here, and every operation gets it. */
export function createReportingService(options: ReportingServiceOptions): ReportingService {
  const tables = new AnalyticsTables({
    reporting: options.dashboard,
    store: options.tableStore ?? new MemoryTableStore(),
    shared: options.tableStore !== undefined,
    ...(options.board === undefined ? {} : { board: options.board }),
    clock: options.clock,
    ...analyticsTablesSettings(options.config),
    ...tableMetricsHooks(options.registry, options.clock),
  });
  const dashboards = new DashboardWaitingRoom({
    dashboard: options.dashboard,
    clock: options.clock,
    unitLeadMs: options.config.governor.queueTimeoutMs,
  });
  return { tables, dashboards, close: () => tables.close() };
}

function tableMetricsHooks(registry: Registry | undefined, clock: Clock): Partial<AnalyticsTablesOptions> {
  if (registry === undefined) return {};
  const metrics = analyticsTableMetrics(registry, () => clock.now());
  return {
    onAnswered: (asks) => metrics.recordAnswered(asks),
    onWaiting: (count) => metrics.recordWaiting(count),
    onRefused: (reason) => metrics.recordRefusal(reason),
    onTable: (spec, fetchedAt) => metrics.recordTable(tableLabel(spec), fetchedAt),
  };
}
