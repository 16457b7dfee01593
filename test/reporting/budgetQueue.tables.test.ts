/**
 * Table asks in the budget queue (src/reporting/budgetQueue.ts, was the
 * tables' unit scheduler) on an injected clock, over a fake dashboard
 * endpoint granting one slot every 5 s: an ask must start a run of the queue
 * whenever it comes, including the moment a run is ending.
 */
import { alignInstant, resolveWindow } from '../../src/reporting/analytics/window';
import { MetricPlan } from '../../src/reporting/tables/metricPlan';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import { TableAsks, type Delivery } from '../../src/reporting/tables/tableAsks';
import { FakeClock, fakeDashboard } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const UNIT_MS = 5_000;
const DEADLINE_MS = 20_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
const DAY = tableSpec({ last: { number: 1, unit: 'day' } }, {}, 'pageViewsTotal');
const URLS = ['https://news.example/a', 'https://news.example/b'];

function setUp() {
  const clock = new FakeClock(START);
  const dashboard = fakeDashboard({ clock, unitMs: UNIT_MS, urls: URLS });
  const scheduler = new TableAsks({
    reporting: dashboard,
    clock,
    plan: new MetricPlan(),
    tableMetrics: (spec) => [spec.rank],
    windowOf: (spec, now) => resolveWindow(spec.window, alignInstant(now, 60)),
    maxRows: 500,
    maxNarrowedUrls: 500,
    outsideShare: 0.5,
    onTable: async () => {},
  });
  return { clock, dashboard, scheduler };
}

describe('table asks in the budget queue', () => {
  // Fixed test-first: the run set `running = false` a microtask after its last look at the list, so an ask
  // arriving in that gap found a run "in progress", started none, and was refused at its deadline.
  it.each([0, 1, 2, 3, 4, 5])('an ask arriving %i microtasks after the last answer of a run gets the next unit', async (hops) => {
    const { clock, dashboard, scheduler } = setUp();
    const second = scheduler.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS).then(async () => {
      for (let hop = 0; hop < hops; hop += 1) await Promise.resolve();
      return scheduler.wait({ spec: DAY, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS);
    });
    await clock.advance(UNIT_MS + 1_000);

    expect(dashboard.sent).toHaveLength(2);
    await expect(second).resolves.toMatchObject<Partial<Delivery>>({ asks: 1 });
  });
});
