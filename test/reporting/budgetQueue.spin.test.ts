/**
 * No pass of the budget queue repeats without progress in the same instant (issue 35, the spin): an answer the
 * cache serves spends no slot, and a pass it answered nothing in waits for the queue's next look. And a pause
 * woken early leaves no timer armed. On an injected clock, over a fake dashboard endpoint with an answer cache.
 */
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue, type AskKind, type QueuedAsk } from '../../src/reporting/budget/budgetQueue';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import { tableQuery } from '../../src/reporting/tables/tableSpec';
import { resolveWindow } from '../../src/reporting/dashboard/analyticsWindow';
import { recordEvents } from '../support/upstreamEvents';
import { FakeClock, fakeDashboard, settle, tableAsksIn } from './support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const UNIT_MS = 63_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');

function setUp() {
  const clock = new FakeClock(START);
  const endpoint = fakeDashboard({ clock, unitMs: UNIT_MS, urls: ['https://news.example/a'], cacheMs: 600_000 });
  const observer = recordEvents();
  const queue = new BudgetQueue({ reporting: endpoint, clock, plan: new MetricPlan(), outsideShare: 0.5, observer });
  return { clock, endpoint, queue, observer };
}

it('a cached answer that answers nothing spends no slot, and the queue waits for its next look rather than asking again', async () => {
  const { clock, endpoint, queue, observer } = setUp();
  const body = tableQuery(WEEK, resolveWindow(WEEK.window, START), ['pageViewsTotal'], 10);
  // The body's answer is cached (fetched at the slot just spent).
  await endpoint.query(body);
  // A kind whose every turn sends that body and is not answered by it (its ask goes back on the list).
  const kind: AskKind = {
    name: 'table',
    leadMs: 0,
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
  const outcome = queue.wait(kind, 'group', START + 200_000).catch((error: unknown) => error);
  await settle();

  // One pass, served by the cache; then the queue waits (before: a pass every turn of the event loop).
  expect(endpoint.hits).toBe(1);
  await clock.advance(UNIT_MS);
  expect(endpoint.hits).toBeLessThanOrEqual(3);
  expect(observer.events.filter((event) => event.type === 'slot_spent')).toHaveLength(0);
  await clock.advance(200_000);
  expect(await outcome).toMatchObject({ kind: 'budget_exhausted' });
});

it('a pause woken early (the next slot forgotten) leaves no timer armed', async () => {
  const { clock, endpoint, queue } = setUp();
  const tables = tableAsksIn(queue, endpoint);
  await tables.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + 2 * UNIT_MS);
  const other = tableSpec({ last: { number: 1, unit: 'day' } }, {}, 'pageViewsTotal');
  const waiting = tables.wait({ spec: other, metrics: ['pageViewsTotal'] }, clock.now() + 2 * UNIT_MS);
  await settle();
  // The ask's deadline, and the queue's sleep until the next slot.
  const timers = clock.pendingTimers;
  queue.forgetNextSlot();
  await settle();

  // Woken, it tried, was refused again and sleeps again: one sleep, not the old one left beside the new.
  expect(endpoint.refusals).toBe(2);
  expect(clock.pendingTimers).toBe(timers);
  await clock.advance(UNIT_MS);
  await expect(waiting).resolves.toMatchObject({ asks: 1 });
});
