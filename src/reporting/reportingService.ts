import type { Config } from '../config';
import type { BudgetedDashboard } from '../upstream/endpoints/dashboard';
import type { Observer } from '../kernel/observer';
import { BudgetQueue, callerShareOf } from './budget/budgetQueue';
import { DashboardAsks } from './dashboard/dashboardAsks';
import { AnalyticsTables, type AnalyticsTablesOptions } from './tables/analyticsTables';
import type { AnalyticsBoard } from './tables/analyticsBoard';
import type { SharedCallerSlots } from './budget/callerSlots';
import type { Clock } from '../kernel/clock';
import { MetricPlan } from './budget/metricPlan';
import type { TableStore } from './tables/tableStore';
import type { TableRefreshes } from './tables/refreshes';

/**
 * The process's reporting service: what every operation's reporting asks
 * meet in. Built once per process (src/index.ts), handed to the context
 * factory, and closed by the shutdown step `reporting service`.
 */
export interface ReportingService {
  /** The one queue for the reporting budget: dashboards, table asks and refreshes wait in it for their slot. */
  queue: BudgetQueue;
  /** The analytics tables `Article.analytics` and `topArticles` are answered from. */
  tables: AnalyticsTables;
  /** Dashboard asks, merged by metric with every other operation's while they wait in the queue. */
  dashboards: DashboardAsks;
  /** Stops the queue: no refresh or waiting ask outlives the process's shutdown. */
  close(): void;
}

/**
 * The settings it reads: ANALYTICS_*, DASHBOARD_CACHE_TTL_SECONDS, REPORTING_MAX_ROWS,
 * and DASHBOARD_SHARE_* with REPORTING_RATE_PER_MINUTE (the slots one caller's dashboards
 * may spend over the share's window).
 */
export type ReportingServiceConfig = Pick<Config, 'analytics' | 'reportingMaxRows'> & {
  cache: Pick<Config['cache'], 'dashboardTtlSeconds'>;
  governor: Pick<Config['governor'], 'reportingPerMinute'>;
};

export interface ReportingServiceOptions {
  /**
   * The process-wide protected endpoint: a table or a merged query is every operation's, so no operation's
   * allowance pays for it; with it, the reporting budget's bucket, which the queue reads and grants slots from.
   */
  dashboard: BudgetedDashboard;
  config: ReportingServiceConfig;
  clock: Clock;
  /** Where the tables live: this process's memory, or shared by the replicas through Redis (REDIS_URL). */
  tableStore: TableStore;
  /** The table store is the replicas' (Redis): waiting asks also look for tables other replicas fetched. */
  tablesShared: boolean;
  /** What the replicas share besides the tables (waiting asks, demand, learned plan) through Redis; absent, nothing. */
  board: AnalyticsBoard | undefined;
  /** The fair share's ledger shared by the replicas through Redis (a caller's share is the cluster's); absent, each replica counts its own. */
  callerSlots: SharedCallerSlots | undefined;
  /** Where the queue's events go: the one observer (the metrics' implementation, NO_OBSERVER, or a test's recorder). */
  observer: Observer;
  /** Told of every write of the tables (the subscriptions' "refreshed" event, src/reporting/tables/refreshes.ts). */
  refreshes: TableRefreshes;
}

/** What the analytics tables read off the configuration (tests that build tables themselves take the same). */
export type AnalyticsTablesSettings = Pick<
  AnalyticsTablesOptions,
  'ttlSeconds' | 'maxStalenessSeconds' | 'windowAlignSeconds' | 'maxRows' | 'maxNarrowedUrls' | 'newTablesPerCaller'
>;

export function analyticsTablesSettings(config: ReportingServiceConfig): AnalyticsTablesSettings {
  const { analytics } = config;
  return {
    ttlSeconds: config.cache.dashboardTtlSeconds,
    maxStalenessSeconds: analytics.maxStalenessSeconds,
    windowAlignSeconds: analytics.windowAlignSeconds,
    maxRows: config.reportingMaxRows,
    maxNarrowedUrls: analytics.chunkSize,
    newTablesPerCaller: { tables: analytics.newTablesPerCaller, windowMs: analytics.dashboardShareWindowSeconds * 1000 },
  };
}

/** The one place the reporting service is composed: swap a piece here, and every operation gets it. */
export function createReportingService(options: ReportingServiceOptions): ReportingService {
  const queue = new BudgetQueue({
    reporting: options.dashboard,
    clock: options.clock,
    plan: new MetricPlan(),
    outsideShare: options.config.analytics.outsideShare,
    slotsPerMinute: options.config.governor.reportingPerMinute,
    callerShare: callerShareOf(
      options.config.analytics.dashboardSharePerCaller,
      options.config.analytics.dashboardShareWindowSeconds,
      options.config.governor.reportingPerMinute,
    ),
    ...(options.callerSlots === undefined ? {} : { sharedCallerSlots: options.callerSlots }),
    observer: options.observer,
  });
  const tables = new AnalyticsTables({
    queue,
    reporting: options.dashboard,
    store: options.refreshes.watch(options.tableStore),
    shared: options.tablesShared,
    ...(options.board === undefined ? {} : { board: options.board }),
    clock: options.clock,
    ...analyticsTablesSettings(options.config),
  });
  const dashboards = new DashboardAsks({ queue });
  return { queue, tables, dashboards, close: () => queue.close() };
}
