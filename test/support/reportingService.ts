/**
 * The process-wide reporting service (src/reporting/reportingService.ts)
 * around analytics tables a test built itself (on its fake clock, with its
 * own observer). The dashboards' asks join the tables' budget queue as the
 * subgraph composes them: on the server's clock readings, leading the slot by
 * UPSTREAM_QUEUE_TIMEOUT_MS.
 */
import { createReportingService, type ReportingService } from '../../src/reporting/reportingService';
import { DashboardAsks } from '../../src/reporting/dashboard/dashboardAsks';
import type { AnalyticsTables } from '../../src/reporting/tables/analyticsTables';
import { SYSTEM_CLOCK, type Clock } from '../../src/reporting/tables/clock';
import type { DashboardEndpoint } from '../../src/upstream/endpoints/dashboard';
import type { ServerConfig } from '../../src/web/server';

interface Options {
  config: ServerConfig;
  now?: () => number;
}

/** The clock the subgraph's server builds from its `now`: the test's readings, real (unref'd) sleeps. */
function serverClock(now: (() => number) | undefined): Clock {
  return now === undefined ? SYSTEM_CLOCK : { now, sleep: SYSTEM_CLOCK.sleep };
}

export function reportingServiceWith(
  tables: AnalyticsTables,
  dashboard: Pick<DashboardEndpoint, 'query'>,
  options: Options,
): ReportingService {
  const clock = serverClock(options.now);
  const queue = tables.queue;
  const dashboards = new DashboardAsks({ queue, dashboard, clock, unitLeadMs: options.config.governor.queueTimeoutMs });
  return { queue, tables, dashboards, close: () => queue.close() };
}

/** The subgraph's own reporting service, with dashboard asks the test built (on its clock, with its observer). */
export function reportingServiceWithDashboards(
  dashboards: DashboardAsks,
  dashboard: Pick<DashboardEndpoint, 'query'>,
  options: Options,
): ReportingService {
  const service = createReportingService({
    dashboard,
    config: options.config,
    clock: serverClock(options.now),
    tableStore: undefined,
    board: undefined,
    metrics: undefined,
  });
  return { ...service, dashboards };
}
