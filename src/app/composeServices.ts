import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { Config } from '../config';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics/metrics';
import type { SharedDependencies } from '../operation/context';
import type { SharedCallerSlots } from '../reporting/budget/callerSlots';
import { createReportingService, type ReportingServiceConfig } from '../reporting/reportingService';
import type { AnalyticsBoard } from '../reporting/tables/analyticsBoard';
import type { Clock } from '../kernel/clock';
import type { TableRefreshes } from '../reporting/tables/refreshes';
import type { TableStore } from '../reporting/tables/tableStore';
import type { BudgetedDashboard } from '../upstream/endpoints/dashboard';
import type { Observer } from '../kernel/observer';
import { LiveServing } from '../web/subscriptions/liveServing';
import type { CollectGarbage } from '../web/subscriptions/reclaimAfterFlood';
import type { Services } from '../web/services';

/** The settings the process-wide services read (defaults in src/config/; tests: test/support/config.ts). */
export type ServicesConfig = ReportingServiceConfig & Pick<Config, 'subscriptions'>;

/**
 * What the services are built from, every piece required: the process passes the real ones
 * (src/app/composeProcess.ts), tests their fakes (test/support/services.ts). Nothing is defaulted here
 * or below, so no service quietly builds a collaborator of its own (a second budget queue, a second store).
 */
export interface ServiceParts {
  config: ServicesConfig;
  /** The process-wide protected dashboard endpoint (it caches, coalesces and governs). */
  dashboard: BudgetedDashboard;
  /** The process-wide protected render.json endpoint. */
  recommender: SharedDependencies['recommender'];
  /** The one clock: the budget queue's, the tables', the ask deadlines' and cache hints', the feeds' pulse. */
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** GET /metrics serves its registry when given (the observer records into it). */
  metrics: Metrics | undefined;
  /** The process's one observer: the budget queue's, the tables', the live numbers' and the operations' events (src/kernel/observer.ts). */
  observer: Observer;
  /** Where the tables live: this process's memory, or the replicas' Redis. */
  tableStore: TableStore;
  /** The table store is the replicas' (Redis). */
  tablesShared: boolean;
  /** What the replicas share besides the tables (waiting asks, demand, learned plan) through Redis; undefined, nothing. */
  board: AnalyticsBoard | undefined;
  /** The fair share's ledger shared by the replicas through Redis; undefined, each replica counts its own. */
  callerSlots: SharedCallerSlots | undefined;
  /** Every write of the tables (the subscriptions' "refreshed" event); the Redis channel feeds it too, with replicas. */
  refreshes: TableRefreshes;
  /** Apollo's cache (persisted queries, the response cache): in process, or shared through Redis. */
  apolloCache: KeyValueCache<string>;
  /** The process's `gc` (`node --expose-gc`), run once after a flood of subscriptions; undefined, V8 collects in its own time. */
  collectGarbage: CollectGarbage | undefined;
}

/** The one place the process-wide services are composed: swap a piece here, and every operation and feed gets it. */
export function composeServices(parts: ServiceParts): Services {
  const reporting = createReportingService({
    dashboard: parts.dashboard,
    config: parts.config,
    clock: parts.clock,
    tableStore: parts.tableStore,
    tablesShared: parts.tablesShared,
    board: parts.board,
    callerSlots: parts.callerSlots,
    observer: parts.observer,
    refreshes: parts.refreshes,
  });
  const live = new LiveServing({
    config: parts.config.subscriptions,
    askDeadlineMs: parts.config.analytics.askDeadlineMs,
    dashboardTtlSeconds: parts.config.cache.dashboardTtlSeconds,
    refreshes: parts.refreshes,
    clock: parts.clock,
    logger: parts.logger,
    observer: parts.observer,
    collectGarbage: parts.collectGarbage,
  });
  return {
    reporting,
    live,
    recommender: parts.recommender,
    clock: parts.clock,
    logger: parts.logger,
    metrics: parts.metrics,
    observer: parts.observer,
    apolloCache: parts.apolloCache,
    close: () => reporting.close(),
  };
}
