/**
 * The order between kinds of asks in the one queue for the reporting budget
 * (src/reporting/budget/budgetQueue.ts), on an injected clock over a fake endpoint
 * granting one slot every 63 s: a dashboard ask and a table ask waiting for
 * the same slot wait for the one slot the budget's bucket names, and the order decides who gets it.
 * The other rules of the order (asks with nothing to serve them before
 * refreshes, the share of the asks outside the tables) are proven in
 * analyticsTables.test.ts.
 */
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { DashboardAsks } from '../../src/reporting/dashboard/dashboardAsks';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { recordEvents } from '../support/upstreamEvents';
import { FakeClock, fakeDashboard, settle, tableAsksIn } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 63_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
const DASHBOARD: DashboardQueryBody = {
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: [],
  metrics: ['uniqueUsers'],
  order: { metric: 'uniqueUsers', sort: 'DESC' },
};

function setUp(observer = recordEvents()) {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, slotMs: SLOT_MS, urls: ['https://news.example/a'] });
  const queue = new BudgetQueue({ reporting: endpoint, clock, plan: new MetricPlan(), outsideShare: 0.5, observer });
  const tables = tableAsksIn(queue, endpoint);
  const dashboards = new DashboardAsks({ queue });
  return { clock, endpoint, queue, tables, dashboards, observer };
}

it("the newsroom first: a waiting table ask gets the slot before a caller's waiting dashboard ask, which gets the next one, both at the slot the budget names", async () => {
  const { clock, endpoint, tables, dashboards } = setUp();
  await endpoint.query({ ...DASHBOARD, metrics: ['pageViewsTotal'], order: { metric: 'pageViewsTotal', sort: 'DESC' } });
  await clock.advance(1_000);

  const dashboard = dashboards.ask([DASHBOARD], clock.now() + 2 * SLOT_MS, 'greedy-client');
  const table = tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS);
  await settle();
  // The dashboard's own try was refused at once (no slot free); the table ask did not try: the queue read the slot from
  // the budget, and nothing more is tried before it.
  expect(endpoint.refusals).toBe(1);
  await clock.advance(SLOT_MS - 1_000);
  await expect(table).resolves.toMatchObject({ asks: 1 });
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], ['url']]);

  await clock.advance(SLOT_MS);
  await expect(dashboard).resolves.toHaveLength(1);
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], ['url'], []]);
  expect(endpoint.refusals).toBe(1);
});

it("an ask refused at its deadline gets the governor's refusal, never a longer wait than it named, and the observer hears it", async () => {
  const { clock, endpoint, tables, dashboards, observer } = setUp();
  await endpoint.query({ ...DASHBOARD, metrics: ['pageViewsTotal'], order: { metric: 'pageViewsTotal', sort: 'DESC' } });
  await clock.advance(1_000);

  // The governor names the slot 62 s away; this ask may wait 70 s: it waits, and gets the slot.
  const waiting = dashboards.ask([DASHBOARD], clock.now() + 70_000);
  await settle();
  expect(observer.events).toContainEqual({ type: 'asks_waiting', kind: 'dashboard', count: 1 });
  await clock.advance(SLOT_MS);
  await expect(waiting).resolves.toHaveLength(1);
  expect(observer.events).toContainEqual({ type: 'slot_spent', kind: 'dashboard', asks: 1 });

  // The next slot is a minute away, past a 20 s deadline: refused at once, with the governor's seconds.
  const [refused] = await dashboards.ask([{ ...DASHBOARD, metrics: ['averageScroll'] }], clock.now() + 20_000);
  expect(refused).toMatchObject({ kind: 'budget_exhausted' });
  expect((refused as { retryAfterSeconds?: number }).retryAfterSeconds).toBeLessThanOrEqual(Math.ceil(SLOT_MS / 1000));

  // A table ask whose deadline comes before the slot: the queue refuses it at once and tells the observer.
  await expect(tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 20_000)).rejects.toMatchObject({
    kind: 'budget_exhausted',
  });
  expect(observer.events).toContainEqual({ type: 'ask_refused', kind: 'table', reason: 'deadline' });
});
