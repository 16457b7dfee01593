/**
 * Every table in demand gets its turn (issue 35, item 2): with N tables in
 * demand and a budget of B queries a minute, each table is refreshed at least
 * once every ⌈N / B⌉ + 1 minutes, whatever the demand of the others. The
 * reporting service as src/index.ts composes it (REPORTING_RATE_PER_MINUTE
 * is B), on an injected clock, over a fake dashboard endpoint granting B
 * slots a minute; the tables' writes are heard as the subscriptions hear them
 * (src/reporting/tables/refreshes.ts).
 */
import { NO_OBSERVER } from '../../src/kernel/observer';
import { MemoryTableStore } from '../../src/reporting/tables/tableStore';
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { createReportingService } from '../../src/reporting/reportingService';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { tableSpec, type TableSpec } from '../../src/reporting/tables/tableSpec';
import { testConfig } from '../support/config';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';
import { FakeClock, fakeDashboard, settle, tableAsksIn } from './support/tablesFakes';

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

function setUp(slotsPerMinute: number, slotMs: number) {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, slotMs, urls: URLS });
  const defaults = testConfig();
  const config = testConfig({
    governor: { ...defaults.governor, reportingPerMinute: slotsPerMinute },
    cache: { dashboardTtlSeconds: 60 },
    // Served stale for a day: a table left behind shows here as an age, not as a fresh fetch for want of any table.
    analytics: { maxStalenessSeconds: 86_400 },
  });
  const refreshes = new TableRefreshes();
  const service = createReportingService({
    dashboard: { query: (body, grant) => endpoint.query(body, grant), peek: async () => undefined, budget: endpoint.budget },
    config,
    clock,
    tableStore: new MemoryTableStore(),
    tablesShared: false,
    board: undefined,
    callerSlots: undefined,
    observer: NO_OBSERVER,
    refreshes,
  });
  return { clock, endpoint, service, refreshes };
}

describe('every table in demand gets its turn', () => {
  it.each([
    [2, 1, MINUTE_MS],
    [6, 1, MINUTE_MS],
    [20, 1, MINUTE_MS],
    [6, 2, MINUTE_MS / 2],
    // The vendor's one a minute as the governor spaces it (63 s): the queue learns the slots are longer than a minute.
    [2, 1, 63_000],
    [5, 1, 63_000],
    [6, 2, 31_500],
  ])(
    '%i tables in demand of very different weights at %i queries a minute (a slot every %i ms): each is refreshed within ⌈N / B⌉ + 1 minutes',
    async (count, slotsPerMinute, slotMs) => {
      const { clock, service, refreshes } = setUp(slotsPerMinute, slotMs);
      const tables = tablesInDemand(count);
      const boundMs = (Math.ceil(count / slotsPerMinute) + 1) * MINUTE_MS;
      const fetchedAt = new Map<string, number>();
      for (const { spec } of tables) refreshes.on(spec.key, (event) => fetchedAt.set(spec.key, event.fetchedAt));
      const worstAge = new Map<string, number>();
      const refreshCount = new Map<string, number>();
      for (const { spec } of tables) refreshes.on(spec.key, () => refreshCount.set(spec.key, (refreshCount.get(spec.key) ?? 0) + 1));

      const runMs = 3 * boundMs + count * MINUTE_MS;
      // An ask waiting for a slot settles by its deadline: the pulses do not wait for it.
      const pending: Promise<unknown>[] = [];
      for (let elapsed = 0; elapsed < runMs; elapsed += PULSE_MS) {
        // Each feed's pulse (and the readers of the hottest tables): asks served from the table, each recording its demand.
        const asks = tables.flatMap(({ spec, asksPerPulse }) =>
          Array.from({ length: asksPerPulse }, () => service.tables.ranking(spec, 3, clock.now() + 20_000).catch(() => undefined)),
        );
        pending.push(...asks);
        await clock.advance(PULSE_MS);
        for (const { spec } of tables) {
          const at = fetchedAt.get(spec.key);
          if (at !== undefined) worstAge.set(spec.key, Math.max(worstAge.get(spec.key) ?? 0, clock.now() - at));
        }
      }
      await clock.advance(20_000);
      await Promise.all(pending);
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

/** A body's window in days (a whole table's query). */
function days(body: DashboardQueryBody): number {
  return 'range' in body.dates ? Math.round((Date.parse(body.dates.range.end) - Date.parse(body.dates.range.start)) / 86_400_000) : 0;
}

// Fixed test-first: an ask arriving while its table's refresh was in flight (the table it saw was still the old one)
// asked for a refresh again with the old table's fetchedAt, which outlived the new table: the next slot refreshed the
// same table again (the oldest by that stale fetchedAt, or the most demanded), and the other tables waited a slot more.
it('a refresh asked for while its table was being refreshed is dropped once the new table lands: the next slot is another table’s', async () => {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, slotMs: MINUTE_MS, urls: URLS });
  let answerArrives: (() => void) | undefined;
  const slow = {
    budget: endpoint.budget,
    query: async (body: DashboardQueryBody, grant?: SlotGrant) => {
      const answer = await endpoint.query(body, grant);
      // The answer takes a while: the query is in flight until the test lets it land.
      await new Promise<void>((resolve) => (answerArrives = resolve));
      return answer;
    },
  };
  const queue = new BudgetQueue({ observer: NO_OBSERVER, reporting: slow, clock, plan: new MetricPlan(), outsideShare: 0.5 });
  const tables = tableAsksIn(queue, slow);
  const week = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
  const day = tableSpec({ last: { number: 1, unit: 'day' } }, {}, 'pageViewsTotal');
  const first = tables.wait({ spec: week, metrics: ['pageViewsTotal'] }, clock.now() + 2 * MINUTE_MS);
  await settle();
  answerArrives?.();
  const weekFetchedAt = (await first).table.fetchedAt;
  await clock.advance(MINUTE_MS);
  const second = tables.wait({ spec: day, metrics: ['pageViewsTotal'] }, clock.now() + 2 * MINUTE_MS);
  await settle();
  answerArrives?.();
  const dayFetchedAt = (await second).table.fetchedAt;

  // Both due; the week's (older, more demanded) goes at the next slot.
  tables.refresh(week, 5, weekFetchedAt);
  tables.refresh(day, 1, dayFetchedAt);
  await clock.advance(MINUTE_MS);
  expect(endpoint.sent.map(days)).toEqual([7, 1, 7]);
  // While its answer is on its way, a feed's read still sees the old week table and asks again.
  tables.refresh(week, 5, weekFetchedAt);
  answerArrives?.();
  await settle();

  await clock.advance(MINUTE_MS);
  answerArrives?.();
  await settle();
  expect(endpoint.sent.map(days)).toEqual([7, 1, 7, 1]);
  queue.close();
});

// Fixed test-first: new tables' first fetches (class 'unserved') always went before refreshes, so while new tables
// kept arriving the tables in demand shared what the newcomers left, and aged past ⌈N / B⌉ + 1 minutes (442 s against
// a 360 s bound in the mixed live bench). N counts the tables waiting for their first fetch too.
it('while new tables keep arriving, every table in demand is still refreshed within ⌈N / B⌉ + 1 minutes, N counting the new ones', async () => {
  const { clock, service, refreshes } = setUp(1, MINUTE_MS);
  const inDemand = tablesInDemand(3);
  const fetchedAt = new Map<string, number>();
  for (const { spec } of inDemand) refreshes.on(spec.key, (event) => fetchedAt.set(spec.key, event.fetchedAt));
  const worstAge = new Map<string, number>();
  // A reader of a new table every two minutes (a panel on a window nobody asked for yet), waiting up to 90 s for it.
  const NEW_TABLE_EVERY_MS = 2 * MINUTE_MS;
  const newTablesWaiting = new Set<number>();
  const newTablesServed = new Set<number>();
  let mostWaitingFirst = 0;
  const pending: Promise<unknown>[] = [];
  // Each table in demand has its first numbers before the stream begins.
  const firsts = inDemand.map(({ spec }) => service.tables.ranking(spec, 3, clock.now() + 5 * MINUTE_MS).catch(() => undefined));
  await clock.advance(4 * MINUTE_MS);
  await Promise.all(firsts);
  const runMs = 30 * MINUTE_MS;
  for (let elapsed = 0; elapsed < runMs; elapsed += PULSE_MS) {
    pending.push(...inDemand.map(({ spec }) => service.tables.ranking(spec, 3, clock.now() + 20_000).catch(() => undefined)));
    if (elapsed % NEW_TABLE_EVERY_MS === 0) {
      const index = elapsed / NEW_TABLE_EVERY_MS;
      const spec = tableSpec({ last: { number: 100 + index, unit: 'hour' } }, {}, 'pageViewsTotal');
      newTablesWaiting.add(index);
      pending.push(
        service.tables
          .ranking(spec, 3, clock.now() + 90_000)
          .then(() => newTablesServed.add(index))
          .catch(() => undefined)
          .finally(() => newTablesWaiting.delete(index)),
      );
    }
    mostWaitingFirst = Math.max(mostWaitingFirst, newTablesWaiting.size);
    await clock.advance(PULSE_MS);
    for (const { spec } of inDemand) {
      const at = fetchedAt.get(spec.key);
      if (at !== undefined) worstAge.set(spec.key, Math.max(worstAge.get(spec.key) ?? 0, clock.now() - at));
    }
  }
  await clock.advance(MINUTE_MS);
  await Promise.all(pending);
  service.close();

  const boundMs = (inDemand.length + mostWaitingFirst + 1) * MINUTE_MS;
  expect(mostWaitingFirst).toBe(1);
  // Each table over its bound, with its worst age in seconds (empty: none).
  const overBound = inDemand
    .filter(({ spec }) => (worstAge.get(spec.key) ?? Infinity) > boundMs)
    .map(({ spec }) => `${spec.window.last?.number} h: ${(worstAge.get(spec.key) ?? Infinity) / 1000} s > ${boundMs / 1000} s`);
  expect(overBound).toEqual([]);
  // The newcomers still take the slots the tables in demand can spare. Three tables within 5 minutes need 3 slots of
  // every 5, so of the 15 newcomers (2.5 asked for in every 5 slots) the budget has room for about 10, less those whose
  // one slot went to a refresh that was due (their reader gave up after 90 s): at least a third get their numbers.
  expect(newTablesServed.size).toBeGreaterThanOrEqual(runMs / NEW_TABLE_EVERY_MS / 3);
});
