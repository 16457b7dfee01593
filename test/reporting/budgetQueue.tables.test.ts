/**
 * Table asks in the budget queue (src/reporting/budget/budgetQueue.ts) on an
 * injected clock, over a fake dashboard
 * endpoint granting one slot every 5 s: an ask must start a run of the queue
 * whenever it comes, including the moment a run is ending.
 */
import { NO_OBSERVER } from '../../src/kernel/observer';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { alignInstant, resolveWindow } from '../../src/reporting/dashboard/analyticsWindow';
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import { TableAsks, type Delivery } from '../../src/reporting/tables/tableAsks';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { FakeClock, fakeDashboard } from './support/tablesFakes';
import type { SlotBudget } from '../../src/upstream/endpoints/dashboard';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';
import { analyticsTablesSettings } from '../../src/reporting/reportingService';
import { testConfig } from '../support/config';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 5_000;
const DEADLINE_MS = 20_000;
const WEEK = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
const DAY = tableSpec({ last: { number: 1, unit: 'day' } }, {}, 'pageViewsTotal');
const URLS = ['https://news.example/a', 'https://news.example/b'];

function setUp() {
  const settings = analyticsTablesSettings(testConfig());
  const clock = new FakeClock(START);
  const dashboard = fakeDashboard({ clock, slotMs: SLOT_MS, urls: URLS });
  const scheduler = new TableAsks({
    queue: new BudgetQueue({
      observer: NO_OBSERVER,
      reporting: dashboard,
      clock,
      plan: new MetricPlan(),
      outsideShare: testConfig().analytics.outsideShare,
    }),
    reporting: dashboard,
    tableMetrics: (spec) => [spec.rank],
    windowOf: (spec, now) => resolveWindow(spec.window, alignInstant(now, settings.windowAlignSeconds)),
    maxRows: settings.maxRows,
    maxNarrowedUrls: settings.maxNarrowedUrls,
    onTable: async () => {},
  });
  return { clock, dashboard, scheduler };
}

/**
 * A scheduler whose budget reads as the local share did while Redis was away (next slot five minutes off),
 * until `back()`: the shared budget again, told to the listeners as the rate store tells them (`onSharedAgain`).
 */
function setUpAway(awayMs = 300_000) {
  const clock = new FakeClock(START);
  const shared = fakeDashboard({ clock, slotMs: SLOT_MS, urls: URLS });
  let away = true;
  // Redis away: the local share's next slot is five minutes off (by default).
  const localSlotAt = clock.now() + awayMs;
  const listeners: (() => void)[] = [];
  const budget: SlotBudget = {
    freeInMs: async () => (away ? Math.max(0, localSlotAt - clock.now()) : shared.budget.freeInMs()),
    take: async (where, maxWaitMs) => {
      if (!away) return shared.budget.take(where, maxWaitMs);
      throw new UpstreamError({ ...where, kind: 'budget_exhausted', retryAfterSeconds: Math.ceil((localSlotAt - clock.now()) / 1000) });
    },
    onSharedAgain: (listener) => {
      listeners.push(listener);
      return () => undefined;
    },
  };
  const reporting = {
    sent: shared.sent,
    query: (body: Parameters<typeof shared.query>[0], grant?: SlotGrant) => shared.query(body, grant),
    budget,
  };
  const settings = analyticsTablesSettings(testConfig());
  const scheduler = new TableAsks({
    queue: new BudgetQueue({
      observer: NO_OBSERVER,
      reporting,
      clock,
      plan: new MetricPlan(),
      outsideShare: testConfig().analytics.outsideShare,
    }),
    reporting,
    tableMetrics: (spec) => [spec.rank],
    windowOf: (spec, now) => resolveWindow(spec.window, alignInstant(now, settings.windowAlignSeconds)),
    maxRows: settings.maxRows,
    maxNarrowedUrls: settings.maxNarrowedUrls,
    onTable: async () => {},
    // The signal comes only with shared tables (Redis): their asks look for other replicas' tables while they wait.
    lookup: async () => undefined,
  });
  const back = () => {
    away = false;
    for (const listener of listeners) listener();
  };
  return { clock, reporting, scheduler, back };
}

describe('table asks in the budget queue', () => {
  // Fixed test-first: the run set `running = false` a microtask after its last look at the list, so an ask
  // arriving in that gap found a run "in progress", started none, and was refused at its deadline.
  it.each([0, 1, 2, 3, 4, 5])('an ask arriving %i microtasks after the last answer of a run gets the next slot', async (hops) => {
    const { clock, dashboard, scheduler } = setUp();
    const second = scheduler.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS).then(async () => {
      for (let hop = 0; hop < hops; hop += 1) await Promise.resolve();
      return scheduler.wait({ spec: DAY, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS);
    });
    await clock.advance(SLOT_MS + 1_000);

    expect(dashboard.sent).toHaveLength(2);
    await expect(second).resolves.toMatchObject<Partial<Delivery>>({ asks: 1 });
  });

  // Fixed test-first (issue 29, defect 12): a next slot learned from the small local share's refusal while Redis was
  // away was forgotten only by a successful send, so asks were refused at once for minutes after Redis came back.
  it('forgets the next slot learned from a refusal when the endpoint says the shared budget is back', async () => {
    const { clock, reporting, scheduler, back } = setUpAway();
    const refused = scheduler.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS).catch((error: unknown) => error);
    await clock.advance(DEADLINE_MS);
    expect(await refused).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: 300 - DEADLINE_MS / 1000 });

    back();
    const delivered = scheduler.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS);
    await clock.advance(1_000);

    // One query: the waiting ask's, carrying what the refused ask left for its retry (issue 38).
    await expect(delivered).resolves.toMatchObject<Partial<Delivery>>({ asks: 2 });
    expect(reporting.sent).toHaveLength(1);
  });

  // Fixed test-first (issue 38 follow-up, test/upstream/redisPausedBudget.test.ts): when the shared budget came
  // back, every replica's demand left took the slot at once; the losers' refused tries taught the next slot, and
  // the retries the demand was left for were refused at once with a slot free.
  it('sends what a refused ask left at the slot its refusal named, not before, even when the shared budget comes back sooner', async () => {
    const { clock, reporting, scheduler, back } = setUpAway();
    const refused = scheduler.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS).catch((error: unknown) => error);
    await clock.advance(DEADLINE_MS);
    const retryAfterSeconds = 300 - DEADLINE_MS / 1000;
    expect(await refused).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds });

    back();
    await clock.advance(1_000);
    expect(reporting.sent).toHaveLength(0);

    // The slot it names (a second's grace, as retryAfter is in whole seconds): its one query, for the whole table.
    await clock.advance(retryAfterSeconds * 1000 - 2_000);
    expect(reporting.sent).toHaveLength(1);
    expect(reporting.sent[0]?.filters).toEqual([]);
  });
});

describe('a table owed both a whole-table slot and a slot for urls outside it', () => {
  // Fixed test-first (issue 38, item 3, the traced 29.6 % run on three replicas): a table's whole-table demand and its
  // url demand were one entry, promised one slot; the whole table took that slot and the url demand with it, unsent,
  // so every retry of the url ask at its retryAfter was refused again.
  it('promises them two slots and sends the narrowed query for the urls at the second', async () => {
    // The local share's next slot a minute off, so a second slot is within the furthest a refusal may promise.
    const { clock, reporting, scheduler, back } = setUpAway(60_000);
    const outside = 'https://news.example/z';
    const whole = scheduler.wait({ spec: WEEK, metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS).catch((error: unknown) => error);
    const urls = scheduler
      .wait({ spec: WEEK, urls: [outside], articles: [outside], metrics: ['pageViewsTotal'] }, clock.now() + DEADLINE_MS)
      .catch((error: unknown) => error);
    await clock.advance(DEADLINE_MS);
    const wholeRetryAfter = 60 - DEADLINE_MS / 1000;
    expect(await whole).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: wholeRetryAfter });
    // The url demand is promised the slot after the whole table's.
    const urlsRetryAfter = wholeRetryAfter + scheduler.queue.slotMs / 1000;
    expect(await urls).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: urlsRetryAfter });

    back();
    await clock.advance(wholeRetryAfter * 1000 - 1_000);
    expect(reporting.sent.map((body) => body.filters)).toEqual([[]]);

    // At the urls' slot: their narrowed query, which their retry at retryAfter finds answered.
    await clock.advance((urlsRetryAfter - wholeRetryAfter) * 1000);
    expect(reporting.sent).toHaveLength(2);
    expect(reporting.sent[1]?.filters).toEqual([expect.objectContaining({ filter: 'url', value: [outside] })]);
  });
});
