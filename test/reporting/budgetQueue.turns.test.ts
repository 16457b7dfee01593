/**
 * Every table in demand gets its turn (issue 35, item 2): with N tables in
 * demand and a budget of B queries a minute, each table is refreshed at least
 * once every ⌈N / B⌉ + 1 minutes, whatever the demand of the others. The
 * reporting service as src/index.ts composes it (REPORTING_RATE_PER_MINUTE
 * is B), on an injected clock, over a fake dashboard endpoint granting B
 * slots a minute; the tables' writes are heard as the subscriptions hear them
 * (src/reporting/tables/refreshes.ts).
 */
import { createReportingService } from '../../src/reporting/reportingService';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { tableSpec, type TableSpec } from '../../src/reporting/tables/tableSpec';
import { testConfig } from '../support/config';
import { FakeClock, fakeDashboard } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const MINUTE_MS = 60_000;
/** How often each table is asked for: a live feed's pulse at the default TTL of 60 s. */
const PULSE_MS = 15_000;
const URLS = ['https://news.example/a', 'https://news.example/b', 'https://news.example/c'];

/** N tables (one window each: the last 1, 2, … hours), asked for with very different weights: 1, 4, 16, 64, … */
function tablesInDemand(count: number): { spec: TableSpec; asksPerPulse: number }[] {
  return Array.from({ length: count }, (_, index) => ({
    spec: tableSpec({ last: { number: index + 1, unit: 'hour' } }, {}, 'pageViewsTotal'),
    asksPerPulse: [1, 4, 16, 64][index % 4],
  }));
}

function setUp(slotsPerMinute: number) {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, unitMs: MINUTE_MS / slotsPerMinute, urls: URLS });
  const defaults = testConfig();
  const config = testConfig({
    governor: { ...defaults.governor, reportingPerMinute: slotsPerMinute },
    cache: { dashboardTtlSeconds: 60 },
    // Served stale for a day: a table left behind shows here as an age, not as a fresh fetch for want of any table.
    analytics: { maxStalenessSeconds: 86_400 },
  });
  const refreshes = new TableRefreshes();
  const service = createReportingService({
    dashboard: { query: (body) => endpoint.query(body), peek: async () => undefined, onBudgetShared: () => () => undefined },
    config,
    clock,
    tableStore: undefined,
    board: undefined,
    metrics: undefined,
    refreshes,
  });
  return { clock, endpoint, service, refreshes };
}

describe('every table in demand gets its turn', () => {
  it.each([
    [2, 1],
    [6, 1],
    [20, 1],
    [6, 2],
  ])(
    '%i tables in demand of very different weights at %i queries a minute: each is refreshed within ⌈N / B⌉ + 1 minutes',
    async (count, slotsPerMinute) => {
      const { clock, service, refreshes } = setUp(slotsPerMinute);
      const tables = tablesInDemand(count);
      const boundMs = (Math.ceil(count / slotsPerMinute) + 1) * MINUTE_MS;
      const fetchedAt = new Map<string, number>();
      for (const { spec } of tables) refreshes.on(spec.key, (event) => fetchedAt.set(spec.key, event.fetchedAt));
      const worstAge = new Map<string, number>();
      const refreshCount = new Map<string, number>();
      for (const { spec } of tables) refreshes.on(spec.key, () => refreshCount.set(spec.key, (refreshCount.get(spec.key) ?? 0) + 1));

      const runMs = 3 * boundMs + count * MINUTE_MS;
      for (let elapsed = 0; elapsed < runMs; elapsed += PULSE_MS) {
        // Each feed's pulse (and the readers of the hottest tables): asks served from the table, each recording its demand.
        const asks = tables.flatMap(({ spec, asksPerPulse }) =>
          Array.from({ length: asksPerPulse }, () => service.tables.ranking(spec, 3, clock.now() + 20_000).catch(() => undefined)),
        );
        await clock.advance(PULSE_MS);
        await Promise.all(asks);
        for (const { spec } of tables) {
          const at = fetchedAt.get(spec.key);
          if (at !== undefined) worstAge.set(spec.key, Math.max(worstAge.get(spec.key) ?? 0, clock.now() - at));
        }
      }
      service.close();

      // Every table was fetched, and none aged past the bound, the least demanded included.
      expect([...fetchedAt.keys()].sort()).toEqual(tables.map(({ spec }) => spec.key).sort());
      const overBound = tables
        .filter(({ spec }) => (worstAge.get(spec.key) ?? Infinity) > boundMs)
        .map(({ spec }) => spec.window.last?.number);
      expect(overBound).toEqual([]);
      // Demand decides how often: the most demanded table was refreshed at least as often as the least demanded one.
      const hottest = tables.reduce((a, b) => (b.asksPerPulse > a.asksPerPulse ? b : a)).spec.key;
      const coldest = tables[0].spec.key;
      expect(refreshCount.get(hottest) ?? 0).toBeGreaterThanOrEqual(refreshCount.get(coldest) ?? 0);
    },
  );
});
