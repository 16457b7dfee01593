/**
 * The fair share, a rule of the one queue for the reporting budget
 * (src/reporting/budget/budgetQueue.ts, issue 28 item 4), on an injected clock over a
 * fake endpoint granting one slot every 10 s: one caller's dashboard asks may
 * spend at most `slotsPerCaller` slots over `windowMs`; over it, its asks are
 * refused at once with retryAfter, before any try at the endpoint, and never
 * wait; the newsroom's work (table asks, refreshes) comes before any caller's
 * dashboard, even one asked just before the slot.
 */
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue, callerShareOf } from '../../src/reporting/budget/budgetQueue';
import { DashboardAsks } from '../../src/reporting/dashboard/dashboardAsks';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { failurePolicyOf, UpstreamError } from '../../src/kernel/failures/upstreamError';
import { recordEvents } from '../support/upstreamEvents';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';
import { FakeClock, fakeDashboard, lastDaysDashboard, settle, tableAsksIn } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 10_000;
const WINDOW_MS = 60_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');

function setUp({ slotsPerCaller = 2 } = {}) {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, slotMs: SLOT_MS, urls: ['https://news.example/a'] });
  return { endpoint, ...queueOver(endpoint, clock, slotsPerCaller) };
}

/** The fake vendor behind an answer cache, as the protected endpoint has: `vendor` counts what reached it. */
function setUpCached({ slotsPerCaller = 2 } = {}) {
  const clock = new FakeClock(START);
  const vendor = fakeDashboard({ clock, slotMs: SLOT_MS, urls: ['https://news.example/a'] });
  const endpoint = cachedEndpoint(vendor);
  return { vendor, endpoint, ...queueOver(endpoint, clock, slotsPerCaller) };
}

/** The one queue over `endpoint`, half its slots outside the tables, and the table and dashboard asks on it. */
function queueOver(
  endpoint: ReturnType<typeof fakeDashboard> | ReturnType<typeof cachedEndpoint>,
  clock: FakeClock,
  slotsPerCaller: number,
) {
  const observer = recordEvents();
  const queue = new BudgetQueue({
    reporting: endpoint,
    clock,
    plan: new MetricPlan(),
    outsideShare: 0.5,
    observer,
    callerShare: { slotsPerCaller, windowMs: WINDOW_MS },
  });
  const tables = tableAsksIn(queue, endpoint);
  const dashboards = new DashboardAsks({ queue });
  return { clock, queue, tables, dashboards, observer };
}

function shareRefusal(result: unknown): UpstreamError {
  expect(result).toBeInstanceOf(UpstreamError);
  const error = result as UpstreamError;
  expect(error.kind).toBe('caller_share_spent');
  expect(failurePolicyOf(error)).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', waitForSlot: false });
  return error;
}

test('the share is DASHBOARD_SHARE_PER_CALLER of the budget’s slots over the window, rounded down, at least one', () => {
  expect(callerShareOf(0.2, 600, 1)).toEqual({ slotsPerCaller: 2, windowMs: 600_000 });
  expect(callerShareOf(0.2, 600, 600)).toEqual({ slotsPerCaller: 1_200, windowMs: 600_000 });
  expect(callerShareOf(0.05, 60, 1)).toEqual({ slotsPerCaller: 1, windowMs: 60_000 });
});

test("over its share a caller's ask is refused at once with retryAfter, before any try at the endpoint; another caller is answered at the same instant", async () => {
  const { clock, endpoint, dashboards, observer } = setUp();

  await expect(dashboards.ask([lastDaysDashboard(1)], clock.now() + 20_000, 'greedy')).resolves.toHaveLength(1);
  await clock.advance(SLOT_MS);
  await expect(dashboards.ask([lastDaysDashboard(2)], clock.now() + 20_000, 'greedy')).resolves.toHaveLength(1);
  await clock.advance(SLOT_MS);
  const tries = endpoint.sent.length + endpoint.refusals;

  // Two slots in the last minute: the third is refused at once, until the first slot leaves the window (40 s on).
  const [refused] = await dashboards.ask([lastDaysDashboard(3)], clock.now() + 20_000, 'greedy');
  expect(shareRefusal(refused).retryAfterSeconds).toBe(40);
  expect(endpoint.sent.length + endpoint.refusals).toBe(tries);
  expect(observer.events).toContainEqual({ type: 'ask_refused', kind: 'dashboard', reason: 'share' });
  expect(observer.events).toContainEqual({ type: 'caller_refused', caller: 'greedy' });

  // The slot its refused ask did not take is the editor's, now.
  const [answered] = await dashboards.ask([lastDaysDashboard(3)], clock.now() + 20_000, 'editor');
  expect(answered).not.toBeInstanceOf(Error);
  expect(endpoint.sent).toHaveLength(3);
  expect(observer.events.filter((event) => event.type === 'caller_slots')).toEqual([
    { type: 'caller_slots', caller: 'greedy', slots: 1 },
    { type: 'caller_slots', caller: 'greedy', slots: 1 },
    { type: 'caller_slots', caller: 'editor', slots: 1 },
  ]);

  // Once its first slot left the window, the greedy caller has room for one more.
  await clock.advance(40_000);
  const [again] = await dashboards.ask([lastDaysDashboard(4)], clock.now() + 20_000, 'greedy');
  expect(again).not.toBeInstanceOf(Error);
  expect(endpoint.sent).toHaveLength(4);
});

test("a caller's waiting asks beyond its share are refused as soon as its share fills, and the next slot goes to another caller's waiting ask", async () => {
  const { clock, endpoint, dashboards, observer } = setUp({ slotsPerCaller: 1 });
  await endpoint.query(lastDaysDashboard(30));
  await clock.advance(1_000);

  // No slot now: both greedy asks and the editor's wait (none of them has spent anything yet).
  const first = dashboards.ask([lastDaysDashboard(1)], clock.now() + 15_000, 'greedy');
  const second = dashboards.ask([lastDaysDashboard(2)], clock.now() + 30_000, 'greedy');
  const editor = dashboards.ask([lastDaysDashboard(3)], clock.now() + 30_000, 'editor');
  await settle();
  expect(endpoint.refusals).toBe(3);

  // The slot: the earliest deadline (greedy's first) takes it; its second ask is refused at once, not at the next slot.
  await clock.advance(SLOT_MS - 1_000);
  await expect(first).resolves.toHaveLength(1);
  const [refused] = await second;
  expect(shareRefusal(refused).retryAfterSeconds).toBe(WINDOW_MS / 1000);
  expect(observer.events).toContainEqual({ type: 'caller_refused', caller: 'greedy' });

  await clock.advance(SLOT_MS);
  await expect(editor).resolves.toHaveLength(1);
  expect(endpoint.sent.map((body) => body.dates)).toEqual([
    lastDaysDashboard(30).dates,
    lastDaysDashboard(1).dates,
    lastDaysDashboard(3).dates,
  ]);
});

test("a merged query's slot is split between the callers whose asks it carries", async () => {
  const { clock, endpoint, dashboards, observer } = setUp();
  await endpoint.query(lastDaysDashboard(30));
  await clock.advance(1_000);

  const greedy = dashboards.ask([lastDaysDashboard(7)], clock.now() + 20_000, 'greedy');
  const editor = dashboards.ask([{ ...lastDaysDashboard(7), metrics: ['pageViewsTotal'] }], clock.now() + 20_000, 'editor');
  await settle();
  await clock.advance(SLOT_MS);
  await expect(Promise.all([greedy, editor])).resolves.toHaveLength(2);
  expect(endpoint.sent).toHaveLength(2);
  expect(observer.events.filter((event) => event.type === 'caller_slots')).toEqual([
    { type: 'caller_slots', caller: 'greedy', slots: 0.5 },
    { type: 'caller_slots', caller: 'editor', slots: 0.5 },
  ]);
});

test('while a table ask waits, a dashboard asked just before the slot does not try (it would take the slot): the table ask gets the slot', async () => {
  const { clock, endpoint, tables, dashboards } = setUp();
  await endpoint.query(lastDaysDashboard(30));
  await clock.advance(1_000);

  const table = tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS);
  await settle();
  // The queue read the next slot from the budget: no try before it, none refused.
  expect([endpoint.sent.length, endpoint.refusals]).toEqual([1, 0]);
  // 1.5 s before the slot.
  await clock.advance(SLOT_MS - 2_500);
  const asked = dashboards.ask([lastDaysDashboard(1)], clock.now() + 2 * SLOT_MS, 'greedy');
  await settle();
  expect([endpoint.sent.length, endpoint.refusals]).toEqual([1, 0]);

  await clock.advance(1_500);
  await expect(table).resolves.toMatchObject({ asks: 1 });
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], ['url']]);
  await clock.advance(SLOT_MS);
  await expect(asked).resolves.toHaveLength(1);
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], ['url'], []]);
});

test("callers' dashboards go before refreshes only while all of them together spent less than one caller's share; then the refresh comes first", async () => {
  const { clock, endpoint, tables, dashboards } = setUp({ slotsPerCaller: 1 });
  await endpoint.query(lastDaysDashboard(30));
  await clock.advance(1_000);

  // A refresh waits for the slot (at one slot a minute, one nearly always does), and so does the greedy caller's dashboard.
  tables.refresh(WEEK, 5, 0);
  const greedy = dashboards.ask([lastDaysDashboard(1)], clock.now() + 15_000, 'greedy');
  await settle();
  await clock.advance(SLOT_MS - 1_000);
  await expect(greedy).resolves.toHaveLength(1);
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], []]);

  // One caller's share of dashboards is spent over the window: the editor's dashboard (10 s before the slot, the
  // refresh going first: no try, nothing spent) waits behind the refresh.
  const sent = endpoint.sent.length;
  const refusals = endpoint.refusals;
  const editor = dashboards.ask([lastDaysDashboard(2)], clock.now() + 4 * SLOT_MS, 'editor');
  await settle();
  expect([endpoint.sent.length, endpoint.refusals]).toEqual([sent, refusals]);
  await clock.advance(SLOT_MS);
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], [], ['url']]);
  await clock.advance(SLOT_MS);
  await expect(editor).resolves.toHaveLength(1);
  expect(endpoint.sent.map((body) => body.groupBy)).toEqual([[], [], ['url'], []]);
  expect(endpoint.sent[3].dates).toEqual(lastDaysDashboard(2).dates);
});

test("a caller's panels asked at once are each answered from the cache, however few slots its share has left: a try in flight is not counted ahead", async () => {
  const { clock, vendor, endpoint, dashboards } = setUpCached();
  for (const days of [1, 2, 3]) {
    await endpoint.query(lastDaysDashboard(days));
    await clock.advance(SLOT_MS);
  }
  await expect(dashboards.ask([lastDaysDashboard(4)], clock.now() + 20_000, 'editor')).resolves.toHaveLength(1);

  // One slot of two spent: three panels at once, all cached, all answered; no slot spent.
  const panels = await Promise.all([1, 2, 3].map((days) => dashboards.ask([lastDaysDashboard(days)], clock.now() + 20_000, 'editor')));
  expect(panels.flat().filter((answer) => answer instanceof Error)).toEqual([]);
  expect(vendor.sent).toHaveLength(4);
});

/** The fake vendor behind an answer cache with a cache-only read (`peek`), as the protected endpoint has (src/upstream/pipeline.ts). */
function cachedEndpoint(vendor: ReturnType<typeof fakeDashboard>) {
  const cached = new Map<string, Awaited<ReturnType<typeof vendor.query>>>();
  const endpoint = {
    peeks: 0,
    budget: vendor.budget,
    async query(body: DashboardQueryBody, grant?: SlotGrant) {
      const hit = cached.get(JSON.stringify(body));
      if (hit !== undefined) return { ...hit, cache: 'hit' as const };
      const answer = await vendor.query(body, grant);
      cached.set(JSON.stringify(body), answer);
      return answer;
    },
    async peek(body: DashboardQueryBody) {
      endpoint.peeks += 1;
      const hit = cached.get(JSON.stringify(body));
      return hit === undefined ? undefined : { ...hit, cache: 'hit' as const };
    },
  };
  return endpoint;
}

test('a caller over its share is served a cached answer (it costs nothing); only a miss is refused', async () => {
  const { clock, vendor, dashboards, observer } = setUpCached({ slotsPerCaller: 1 });
  await expect(dashboards.ask([lastDaysDashboard(1)], clock.now() + 20_000, 'greedy')).resolves.toHaveLength(1);
  await clock.advance(SLOT_MS);

  // Its one slot is spent: the same dashboard again is in the cache and answered; a new one is refused, with no try.
  const [again] = await dashboards.ask([lastDaysDashboard(1)], clock.now() + 20_000, 'greedy');
  expect(again).not.toBeInstanceOf(Error);
  expect(observer.events).not.toContainEqual({ type: 'caller_refused', caller: 'greedy' });
  const [miss] = await dashboards.ask([lastDaysDashboard(2)], clock.now() + 20_000, 'greedy');
  expect(shareRefusal(miss).retryAfterSeconds).toBe(50);
  expect(observer.events.filter((event) => event.type === 'caller_refused')).toEqual([{ type: 'caller_refused', caller: 'greedy' }]);
  expect([vendor.sent.length, vendor.refusals]).toEqual([1, 0]);
});

test('while a table ask waits for the slot, a cached dashboard is answered at once from the cache, not held behind it', async () => {
  const { clock, vendor, endpoint, tables, dashboards } = setUpCached();
  await endpoint.query(lastDaysDashboard(1));
  await clock.advance(1_000);
  const table = tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS);
  await settle();
  // Inside the dashboards' lead of the slot, with a deadline before it: held back, it would be refused.
  await clock.advance(SLOT_MS - 2_500);
  const [cached] = await dashboards.ask([lastDaysDashboard(1)], clock.now() + 1_000, 'editor');
  expect(cached).not.toBeInstanceOf(Error);
  expect(cached).toMatchObject({ cache: 'hit' });

  await clock.advance(1_500);
  await expect(table).resolves.toMatchObject({ asks: 1 });
  expect(vendor.sent.map((body) => body.groupBy)).toEqual([[], ['url']]);
});
