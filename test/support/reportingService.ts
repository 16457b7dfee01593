/**
 * The process-wide reporting service (src/reporting/reportingService.ts)
 * around analytics tables a test built itself (on its fake clock, with its
 * own hooks). The dashboards' waiting room is built as the subgraph builds
 * it: on the server's clock readings, leading the unit by
 * UPSTREAM_QUEUE_TIMEOUT_MS.
 */
import { createReportingService, type ReportingService } from '../../src/reporting/reportingService';
import { DashboardWaitingRoom } from '../../src/reporting/dashboard/waitingRoom';
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
  const dashboards = new DashboardWaitingRoom({ dashboard, clock, unitLeadMs: options.config.governor.queueTimeoutMs });
  return { tables, dashboards, close: () => tables.close() };
}

/** The subgraph's own reporting service, with a dashboards' waiting room the test built (on its clock, with its hooks). */
export function reportingServiceWithRoom(
  dashboards: DashboardWaitingRoom,
  dashboard: Pick<DashboardEndpoint, 'query'>,
  options: Options,
): ReportingService {
  const service = createReportingService({
    dashboard,
    config: options.config,
    clock: serverClock(options.now),
    tableStore: undefined,
    board: undefined,
    registry: undefined,
  });
  return { ...service, dashboards };
}
