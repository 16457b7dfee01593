/**
 * The process-wide reporting service: built once (src/index.ts), shared by
 * every operation's context, closed by the process's shutdown step. Before,
 * the context factory built the tables and the dashboards' asks through WeakMaps
 * keyed by its dependencies, and nothing ever closed the tables.
 */
import { OPEN_CALLER } from '../../src/auth/callers/caller';
import { createContext, type SharedDependencies } from '../../src/operation/context';
import { createReportingService, type ReportingService } from '../../src/reporting/reportingService';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import { MemoryTableStore } from '../../src/reporting/tables/tableStore';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { NO_OBSERVER } from '../../src/kernel/observer';
import { testServices } from '../support/services';
import { buildServer } from '../../src/web/server';
import { metricRuleOf } from '../../src/graphql/access/metricRule';
import { buildSchema } from '../../src/graphql/subgraphSchema';
import { testConfig } from '../support/config';
import { fakeRecommender, silentLogger } from '../support/subgraph';
import { FakeClock, fakeDashboard, type FakeDashboard } from '../reporting/support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 63_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
const DAY = tableSpec({ last: { number: 1, unit: 'day' } }, {}, 'pageViewsTotal');
const URLS = ['https://news.example/a', 'https://news.example/b'];

function setUp(): { clock: FakeClock; dashboard: FakeDashboard; service: ReportingService } {
  const clock = new FakeClock(START);
  const dashboard = fakeDashboard({ clock, slotMs: SLOT_MS, urls: URLS });
  const service = createReportingService({
    dashboard,
    config: testConfig(),
    clock,
    tableStore: new MemoryTableStore(),
    tablesShared: false,
    board: undefined,
    callerSlots: undefined,
    observer: NO_OBSERVER,
    refreshes: new TableRefreshes(),
  });
  return { clock, dashboard, service };
}

function shared(service: ReportingService, clock: FakeClock): SharedDependencies {
  const config = testConfig();
  return {
    reportingService: service,
    recommender: fakeRecommender(),
    renderMaxConcurrency: 4,
    analytics: config.analytics,
    cacheTtls: config.cache,
    logger: silentLogger,
    now: () => clock.now(),
    maxUpstreamCallsPerOperation: config.limits.maxUpstreamCallsPerOperation,
    reportingMaxRows: config.reportingMaxRows,
    metricRule: metricRuleOf(buildSchema()),
    observer: NO_OBSERVER,
  };
}

describe('the reporting service, built once per process', () => {
  it('every operation context asks the one service: its tables (read as the operation’s caller), not a set of its own', async () => {
    const { clock, service } = setUp();
    const dependencies = shared(service, clock);
    const ranking = jest.spyOn(service.tables, 'ranking');

    const contexts = [
      createContext(dependencies, { ...OPEN_CALLER, id: 'one' }),
      createContext(dependencies, { ...OPEN_CALLER, id: 'two' }),
    ];
    for (const context of contexts) await context.analyticsTables.ranking(WEEK, 2, clock.now() + 120_000);

    // Both through the service's tables, each with its caller (the tables no store holds count against its cap).
    expect(ranking.mock.calls.map((call) => call[3]?.caller)).toEqual(['one', 'two']);
    service.close();
  });

  it('closed, it sends no more queries: an ask waiting for the next slot does not take it', async () => {
    const open = setUp();
    const closed = setUp();
    for (const { clock, service } of [open, closed]) {
      await service.tables.ranking(WEEK, 2, clock.now() + 120_000);
      // The slot is spent: this ask waits for the next one.
      void service.tables.ranking(DAY, 2, clock.now() + 120_000).catch(() => undefined);
    }

    closed.service.close();
    await Promise.all([open.clock.advance(SLOT_MS + 1_000), closed.clock.advance(SLOT_MS + 1_000)]);

    expect(open.dashboard.sent).toHaveLength(2);
    expect(closed.dashboard.sent).toHaveLength(1);
    open.service.close();
  });

  it('a server serves the services it is given and never closes them: the process’s shutdown does, after the drain', async () => {
    const config = testConfig({ production: false });
    const services = testServices(config, {
      dashboard: fakeDashboard({ clock: new FakeClock(START), slotMs: SLOT_MS, urls: URLS }),
      recommender: fakeRecommender(),
    });
    let closes = 0;
    const reporting: ReportingService = { ...services.reporting, close: () => (closes += 1) };
    const server = buildServer(config, { ...services, reporting, close: () => reporting.close() });
    await server.start();

    const ranking = jest.spyOn(services.reporting.tables, 'ranking');
    await server.createContext().analyticsTables.ranking(WEEK, 2, Date.now() + 1_000);
    expect(ranking).toHaveBeenCalledTimes(1);
    await server.stop();
    expect(closes).toBe(0);
    services.close();
  });
});
