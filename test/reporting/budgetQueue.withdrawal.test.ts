/**
 * Demand leaves with its subscribers (issue 35, item 4): an ask whose asker
 * left (its signal aborted: a live feed whose last subscriber left) is
 * withdrawn from the budget queue before it takes a slot, and what it held
 * (its place in the list, its deadline's timer) is released; a refresh only
 * feeds asked for is withdrawn once they all left. On an injected clock, over
 * a fake dashboard endpoint granting one slot every 63 s.
 */
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import { recordEvents } from '../support/upstreamEvents';
import { FakeClock, fakeDashboard, settle, tableAsksIn } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 63_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
const sectionTable = (index: number) => tableSpec({ last: { number: 1, unit: 'day' } }, { section: `S-${index}` }, 'pageViewsTotal');

function setUp() {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, slotMs: SLOT_MS, urls: ['https://news.example/a'] });
  const observer = recordEvents();
  const queue = new BudgetQueue({ reporting: endpoint, clock, plan: new MetricPlan(), outsideShare: 0.5, observer });
  const tables = tableAsksIn(queue, endpoint);
  return { clock, endpoint, queue, tables, observer };
}

/** The last count of table asks waiting the observer heard. */
function tableAsksWaiting(observer: ReturnType<typeof recordEvents>): number | undefined {
  const counts = observer.events.filter((event) => event.type === 'asks_waiting' && event.kind === 'table');
  return (counts.at(-1) as { count?: number } | undefined)?.count;
}

it('withdraws the waiting asks of askers that left before they take a slot: no query for them, their timers released', async () => {
  const { clock, endpoint, tables, observer } = setUp();
  // The first slot goes to a table someone still wants; the next is 63 s away.
  await tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS);
  const timersBefore = clock.pendingTimers;

  const leaving = Array.from({ length: 1_000 }, (_, index) => {
    const asker = new AbortController();
    const outcome = tables.wait({ spec: sectionTable(index), metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS, asker.signal).then(
      () => 'answered',
      (error: unknown) => error,
    );
    return { asker, outcome };
  });
  await settle();
  expect(tableAsksWaiting(observer)).toBe(1_000);
  // Each ask's deadline, and the queue's own sleep until its next slot.
  expect(clock.pendingTimers).toBe(timersBefore + 1_001);
  for (const { asker } of leaving) asker.abort();
  await settle();

  expect(tableAsksWaiting(observer)).toBe(0);
  // Each deadline's timer is gone with its ask (a thousand abandoned asks hold nothing until their deadline);
  // the queue's sleep until its next slot ends there.
  expect(clock.pendingTimers).toBe(timersBefore + 1);
  await clock.advance(2 * SLOT_MS);
  const outcomes = await Promise.all(leaving.map(({ outcome }) => outcome));
  expect(outcomes.filter((outcome) => outcome === 'answered')).toHaveLength(0);
  expect(outcomes[0]).toMatchObject({ name: 'AbortError' });
  // Only the first table was ever fetched.
  expect(endpoint.sent).toHaveLength(1);
});

it('refuses at once an ask whose asker left before it came to wait, and keeps the asks of those who stay', async () => {
  const { clock, endpoint, tables } = setUp();
  await tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS);
  const gone = new AbortController();
  gone.abort();
  await expect(
    tables.wait({ spec: sectionTable(1), metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS, gone.signal),
  ).rejects.toMatchObject({
    name: 'AbortError',
  });

  const leaves = new AbortController();
  const stays = new AbortController();
  const left = tables
    .wait({ spec: sectionTable(2), metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS, leaves.signal)
    .catch((error: unknown) => error);
  const kept = tables.wait({ spec: sectionTable(2), metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS, stays.signal);
  await settle();
  leaves.abort();
  await clock.advance(SLOT_MS);

  await expect(kept).resolves.toMatchObject({ asks: 1 });
  expect(await left).toMatchObject({ name: 'AbortError' });
  expect(endpoint.sent.map((body) => body.filters.map((filter) => filter.value))).toEqual([[], [['S-2']]]);
});

it('withdraws a refresh only askers that left asked for, and keeps one anyone else asked for', async () => {
  const { clock, endpoint, tables } = setUp();
  await tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * SLOT_MS);
  const feed = new AbortController();
  // A feed's pulse asked for a refresh of the week's table, then its last subscriber left.
  tables.refresh(WEEK, 1, START, feed.signal);
  // A query (no asker to leave) asked for a refresh of the day's table.
  tables.refresh(sectionTable(0), 1, START);
  const otherFeed = new AbortController();
  tables.refresh(sectionTable(0), 1, START, otherFeed.signal);
  feed.abort();
  otherFeed.abort();
  await clock.advance(3 * SLOT_MS);

  // The day's table was refreshed (a query still wants it); the week's refresh was withdrawn.
  expect(endpoint.sent.slice(1).map((body) => body.filters.map((filter) => filter.value))).toEqual([[['S-0']]]);
});
