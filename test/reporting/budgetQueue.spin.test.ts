/**
 * No pass of the budget queue repeats without progress in the same instant (issue 35, the spin): an answer the
 * cache serves spends no slot, and a pass it answered nothing in waits for the queue's next look; an arriving ask
 * still finds a free slot at once. On an injected clock, over a fake dashboard endpoint with an answer cache.
 */
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue, type AskKind, type QueuedAsk } from '../../src/reporting/budget/budgetQueue';
import { tableQuery, tableSpec } from '../../src/reporting/tables/tableSpec';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { resolveWindow } from '../../src/reporting/dashboard/analyticsWindow';
import { recordEvents } from '../support/upstreamEvents';
import { FakeClock, fakeDashboard, settle, tableAsksIn } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 63_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
const DAY = tableSpec({ last: { number: 1, unit: 'day' } }, {}, 'pageViewsTotal');

function setUp() {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, slotMs: SLOT_MS, urls: ['https://news.example/a'], cacheMs: 600_000 });
  const observer = recordEvents();
  const queue = new BudgetQueue({ reporting: endpoint, clock, plan: new MetricPlan(), outsideShare: 0.5, observer });
  return { clock, endpoint, queue, observer };
}

/** A kind whose every turn sends `body` and is not answered by it: its ask goes back on the list. */
function requeuingKind(queue: BudgetQueue, body: DashboardQueryBody): AskKind {
  return {
    name: 'table',
    refusesHopeless: false,
    candidates: (asks: readonly QueuedAsk[]) =>
      asks.map((ask) => ({
        class: 'outside' as const,
        weight: 1,
        earliestDeadline: ask.deadline,
        take: async () => ({
          body,
          asks: [ask],
          answered: async () => {
            queue.requeue(ask);
            return 0;
          },
          failed: () => undefined,
        }),
      })),
  };
}

/** An ask whose body's answer is cached (fetched at the slot just spent) and answers nothing: one pass has been made. */
async function waitingOnCachedBody() {
  const set = setUp();
  const body = tableQuery(WEEK, resolveWindow(WEEK.window, START), ['pageViewsTotal'], 10);
  await set.endpoint.query(body);
  // The budget's next slot: the queue reads it and makes its pass then (it sends nothing before a free slot).
  await set.clock.advance(SLOT_MS);
  const outcome = set.queue.wait(requeuingKind(set.queue, body), 'group', START + 200_000).catch((error: unknown) => error);
  await settle();
  return { ...set, outcome };
}

it('a cached answer that answers nothing spends no slot, and the queue waits for its next look rather than asking again', async () => {
  const { clock, endpoint, observer, outcome } = await waitingOnCachedBody();

  // One pass, served by the cache; then the queue waits (before: a pass every turn of the event loop).
  expect(endpoint.hits).toBe(1);
  await clock.advance(SLOT_MS);
  expect(endpoint.hits).toBeLessThanOrEqual(3);
  expect(observer.events.filter((event) => event.type === 'slot_spent')).toHaveLength(0);
  await clock.advance(200_000);
  expect(await outcome).toMatchObject({ kind: 'budget_exhausted' });
});

it('an ask arriving while the queue waits after a pass without progress is sent at once at a free slot', async () => {
  const { clock, endpoint, queue, outcome } = await waitingOnCachedBody();
  expect(endpoint.hits).toBe(1);
  // The vendor's next slot is free, the queue still waits for its next look (a minute's slot).
  const tables = tableAsksIn(queue, endpoint);
  const asked = tables.wait({ spec: DAY, metrics: ['pageViewsTotal'] }, clock.now() + 20_000);
  await settle();

  expect(endpoint.sent).toHaveLength(2);
  await expect(asked).resolves.toMatchObject({ asks: 1 });
  await clock.advance(200_000);
  expect(await outcome).toMatchObject({ kind: 'budget_exhausted' });
});
