/**
 * Dashboard asks in the budget queue (src/reporting/budget/budgetQueue.ts) on an
 * injected clock: asks of one kind (bodies that differ only in their
 * metrics) share one query when they are asked together, and across
 * operations only while they wait for the next slot; an ask answered from
 * the cache or granted a slot now never waits; an ask whose deadline comes
 * before the slot is refused with retryAfter; a metric
 * outside the plan fails only the asks naming it.
 */
import { BudgetQueue, type BudgetQueueOptions } from '../../src/reporting/budget/budgetQueue';
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { NO_OBSERVER } from '../../src/kernel/observer';
import { DashboardAsks } from '../../src/reporting/dashboard/dashboardAsks';
import { Metric } from '../../contract';
import type { Served } from '../../src/kernel/fetched';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../src/kernel/wire';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { dashboardBodyKey } from '../../src/upstream/keys';
import { DASHBOARD_WHERE, FakeClock, fakeBudget, settle } from './support/tablesFakes';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';

const SLOT_MS = 63_000;
const DEADLINE_MS = 20_000;
const TTL_MS = 300_000;

function body(metrics: MetricName[], overrides: Partial<DashboardQueryBody> = {}): DashboardQueryBody {
  return {
    dates: { last: { number: 7, dimension: 'day' } },
    filters: [],
    groupBy: [],
    metrics,
    order: { metric: metrics[0], sort: 'DESC' },
    ...overrides,
  };
}

/**
 * The protected endpoint as the room sees it: an answer cache (fresh for TTL_MS), then each attempt granted
 * its slot by the queue from a budget of one slot per SLOT_MS (refused in between with `budget_exhausted` and
 * `retryAfter`, spending nothing), recording every body sent. Each metric's total is its name's length; a
 * metric in `unplanned` answers the empty body. A query sent is answered `latencyMs` later.
 */
function fakeVendor(clock: FakeClock, unplanned: readonly MetricName[] = [], latencyMs = 0) {
  const cache = new Map<string, Served<DashboardMetricResultWire[]>>();
  const budget = fakeBudget(clock, SLOT_MS);
  const vendor = {
    sent: [] as DashboardQueryBody[],
    budget,
    /** Another caller (a table refresh) takes the next slot. */
    spendSlot: () => budget.spendSlot(),
    async query(sent: DashboardQueryBody, grant?: SlotGrant): Promise<Served<DashboardMetricResultWire[]>> {
      const now = clock.now();
      const cached = cache.get(dashboardBodyKey(sent));
      if (cached !== undefined && now - cached.fetchedAt < TTL_MS) return { ...cached, cache: 'hit' };
      await grant?.(DASHBOARD_WHERE, undefined);
      vendor.sent.push(sent);
      if (latencyMs > 0) await clock.sleep(latencyMs);
      if (sent.metrics.some((metric) => unplanned.includes(metric))) {
        throw new UpstreamError({ service: 'reporting', endpoint: '/api/dashboard/query', kind: 'metric_unavailable', status: 200 });
      }
      const value = sent.metrics.map((metric) => ({
        metric,
        total: metric.length,
        granularity: 'daily' as const,
        availableGranularities: ['daily' as const],
        actualData: { values: [], data: [] },
      }));
      const answer = { value, fetchedAt: clock.now(), cache: 'miss' as const };
      cache.set(dashboardBodyKey(sent), answer);
      return answer;
    },
  };
  return vendor;
}

function setUp(unplanned: readonly MetricName[] = [], latencyMs = 0) {
  const clock = new FakeClock(Date.UTC(2026, 10, 25, 12));
  const vendor = fakeVendor(clock, unplanned, latencyMs);
  const counts: number[] = [];
  const refusals: string[] = [];
  const slotsSpent: number[] = [];
  const queue = new BudgetQueue({
    reporting: vendor,
    clock,
    outsideShare: 0,
    plan: new MetricPlan(),
    observer: {
      ...NO_OBSERVER,
      asksWaiting: (_kind, count) => counts.push(count),
      askRefused: (kind, reason) => refusals.push(`${kind}:${reason}`),
      slotSpent: (_kind, asks) => slotsSpent.push(asks),
    },
  });
  const room = new DashboardAsks({ queue });
  const waiting = () => counts.at(-1) ?? 0;
  /** One operation's asks of one group, with the deadline of an operation started now. */
  const ask = (...bodies: DashboardQueryBody[]) => room.ask(bodies, clock.now() + DEADLINE_MS);
  return { clock, vendor, room, waiting, ask, refusals, slotsSpent };
}

const metricsOf = (answer: Served<DashboardMetricResultWire[]> | Error | undefined) =>
  answer instanceof Error || answer === undefined ? answer : answer.value.map((result) => [result.metric, result.total]);

/** A window other asks do not share: the query that spends the slot before a test's asks arrive. */
const OTHER_KIND = body(['pageViewsTotal'], { dates: { last: { number: 1, dimension: 'day' } } });

describe('DashboardAsks', () => {
  it('sends the asks of one operation that differ only in metrics as one query at once, each getting its own metrics in its order', async () => {
    const { vendor, waiting, ask } = setUp();

    const answers = await ask(
      body(['uniqueUsers', 'pageViewsTotal']),
      body(['averageScroll'], { order: { metric: 'averageScroll', sort: 'ASC' } }),
    );

    expect(vendor.sent).toEqual([
      { ...body(['averageScroll', 'pageViewsTotal', 'uniqueUsers']), order: { metric: 'averageScroll', sort: 'DESC' } },
    ]);
    expect(answers.map(metricsOf)).toEqual([
      [
        ['uniqueUsers', 11],
        ['pageViewsTotal', 14],
      ],
      [['averageScroll', 13]],
    ]);
    expect(waiting()).toBe(0);
  });

  it('lets asks of other operations that find no slot wait for the next one, then answers them all with ONE query carrying the union', async () => {
    const { clock, vendor, waiting, ask } = setUp();
    await ask(OTHER_KIND);
    await clock.advance(50_000);

    const first = ask(body(['pageViewsTotal']));
    const second = ask(body(['uniqueUsers', 'averageScroll']));
    await settle();
    expect(waiting()).toBe(2);
    expect(vendor.sent).toHaveLength(1);

    await clock.advance(SLOT_MS - 50_000);
    expect(metricsOf((await first)[0])).toEqual([['pageViewsTotal', 14]]);
    expect(metricsOf((await second)[0])).toEqual([
      ['uniqueUsers', 11],
      ['averageScroll', 13],
    ]);
    expect(vendor.sent).toEqual([OTHER_KIND, body(['averageScroll', 'pageViewsTotal', 'uniqueUsers'])]);
    expect(waiting()).toBe(0);
  });

  it('keeps apart waiting asks of different kinds: each kind its own slot, the fullest first', async () => {
    const { clock, vendor, ask } = setUp();
    await ask(OTHER_KIND);
    await clock.advance(50_000);

    const grouped = { groupBy: ['deviceType' as const] };
    const lone = ask(body(['pageViewsTotal'], grouped));
    const pair = [ask(body(['pageViewsTotal'])), ask(body(['uniqueUsers']))];
    await clock.advance(SLOT_MS - 50_000);
    await Promise.all(pair);

    expect(vendor.sent.slice(1)).toEqual([body(['pageViewsTotal', 'uniqueUsers'])]);
    // The lone grouped ask's next slot is a minute away, past its deadline: refused with retryAfter.
    expect((await lone)[0]).toMatchObject({ kind: 'budget_exhausted' });
    expect(((await lone)[0] as UpstreamError).retryAfterSeconds).toBeGreaterThan(DEADLINE_MS / 1000);
  });

  it('gives the slot to the waiting asks, so an ask arriving just before it cannot take the slot alone', async () => {
    const { clock, vendor, ask } = setUp();
    await ask(OTHER_KIND);
    await clock.advance(50_000);
    const waiter = ask(body(['pageViewsTotal']));
    await settle();

    // 1.5 s before the unit: the waiting ask goes first, so this ask finds no unit within its deadline.
    await clock.advance(SLOT_MS - 50_000 - 1_500);
    const lateAsk = ask(body(['uniqueUsers'], { dates: { last: { number: 30, dimension: 'day' } } }));
    await clock.advance(1_500);
    const [late] = await lateAsk;

    expect(metricsOf((await waiter)[0])).toEqual([['pageViewsTotal', 14]]);
    expect(late).toMatchObject({ kind: 'budget_exhausted' });
    expect(vendor.sent).toEqual([OTHER_KIND, body(['pageViewsTotal'])]);
  });

  it('refuses at once, with retryAfter and without a query, an ask whose next slot comes after its deadline', async () => {
    const { clock, vendor, waiting, ask, refusals } = setUp();
    await ask(OTHER_KIND);
    await clock.advance(30_000);

    const [answer] = await ask(body(['pageViewsTotal']));

    expect(answer).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: 33 });
    expect(vendor.sent).toEqual([OTHER_KIND]);
    expect(waiting()).toBe(0);
    // Told to the observer like any refusal at the deadline (the metrics count it by kind).
    expect(refusals).toEqual(['dashboard:deadline']);
  });

  it('answers a waiting ask whose query was sent within its deadline though the answer comes after it: the slot spent is not wasted', async () => {
    // The deadline bounds the wait for a slot (ANALYTICS_ASK_DEADLINE_MS); once the query is sent, the ask waits for its answer.
    const latencyMs = 2_000;
    const { clock, vendor, room, refusals } = setUp([], latencyMs);
    const spent = room.ask([OTHER_KIND], clock.now() + DEADLINE_MS);
    await clock.advance(latencyMs);
    await spent;

    // The next slot comes 1 s before the ask's deadline; its answer 1 s after it.
    const nextSlotAt = clock.now() - latencyMs + SLOT_MS;
    const waiting = room.ask([body(['pageViewsTotal'])], nextSlotAt + 1_000);
    await clock.advance(nextSlotAt - clock.now() + latencyMs);

    expect((await waiting).map(metricsOf)).toEqual([[['pageViewsTotal', 14]]]);
    expect(vendor.sent).toHaveLength(2);
    expect(refusals).toEqual([]);
  });

  it('refuses a waiting ask with retryAfter when another caller took its slot and the next one comes after its deadline', async () => {
    const { clock, vendor, ask, refusals } = setUp();
    await ask(OTHER_KIND);
    await clock.advance(50_000);
    const waiter = ask(body(['pageViewsTotal']));
    await settle();

    vendor.spendSlot();
    await clock.advance(SLOT_MS - 50_000);

    const [answer] = await waiter;
    expect(answer).toMatchObject({ kind: 'budget_exhausted' });
    expect((answer as UpstreamError).retryAfterSeconds).toBeGreaterThanOrEqual(SLOT_MS / 1000);
    expect(vendor.sent).toEqual([OTHER_KIND]);
    expect(refusals).toEqual(['dashboard:deadline']);
  });

  it('never makes an ask wait that the answer cache answers: its own body, or a body fetched for its kind that carries its metrics', async () => {
    const { clock, vendor, waiting, ask } = setUp();
    await ask(OTHER_KIND);
    await clock.advance(50_000);
    const merged = [ask(body(['pageViewsTotal'])), ask(body(['uniqueUsers']))];
    await clock.advance(SLOT_MS - 50_000);
    await Promise.all(merged);
    expect(vendor.sent).toHaveLength(2);

    // The budget is spent again (the merged query took the slot); both kinds of cached answer come at once.
    const own = await ask(OTHER_KIND);
    const fromMerged = await ask(body(['uniqueUsers']), body(['pageViewsTotal']));

    expect(metricsOf(own[0])).toEqual([['pageViewsTotal', 14]]);
    expect(own[0]).toMatchObject({ cache: 'hit' });
    expect(fromMerged.map(metricsOf)).toEqual([[['uniqueUsers', 11]], [['pageViewsTotal', 14]]]);
    expect(fromMerged[0]).toMatchObject({ cache: 'hit' });
    expect(vendor.sent).toHaveLength(2);
    expect(waiting()).toBe(0);
  });

  it('answers waiting asks whose merged body the answer cache holds at their slot without spending it (issue 35)', async () => {
    const { clock, vendor, waiting, ask, slotsSpent } = setUp();
    const merged = body(['averageScroll', 'pageViewsTotal', 'uniqueUsers']);
    // Another caller's identical body took this slot (granted from the same budget): its answer is cached.
    await vendor.query(merged, (where) => vendor.budget.take(where, 0));
    await clock.advance(50_000);
    const first = ask(body(['pageViewsTotal']));
    const second = ask(body(['uniqueUsers', 'averageScroll']));
    await settle();
    expect(waiting()).toBe(2);

    await clock.advance(SLOT_MS - 50_000);
    expect(metricsOf((await first)[0])).toEqual([['pageViewsTotal', 14]]);
    expect(metricsOf((await second)[0])).toEqual([
      ['uniqueUsers', 11],
      ['averageScroll', 13],
    ]);
    // Served by the cache: no query sent, no slot spent, and the queue did not go round again for them.
    expect(vendor.sent).toEqual([merged]);
    expect(slotsSpent).toEqual([]);
    expect(waiting()).toBe(0);
  });

  it('asks each body alone after a merged query names a metric outside the plan: only the asks naming it fail, and it is merged no more', async () => {
    const { clock, vendor, room, ask } = setUp([Metric.CPM]);
    const deadline = clock.now() + 10 * SLOT_MS;

    // One operation: the merged query fails, then each body alone at a slot of its own.
    const answers = room.ask([body(['pageViewsTotal']), body([Metric.CPM])], deadline);
    await clock.advance(2 * SLOT_MS);
    const [views, cpm] = await answers;

    expect(metricsOf(views)).toEqual([['pageViewsTotal', 14]]);
    expect(cpm).toMatchObject({ kind: 'metric_unavailable' });
    expect(vendor.sent.map((sent) => sent.metrics)).toEqual([[Metric.CPM, 'pageViewsTotal'], ['pageViewsTotal'], [Metric.CPM]]);

    // CPM is a suspect now: an ask naming it is a group of its own, the others still merge.
    expect(room.groupOf(body([Metric.CPM, 'uniqueUsers']))).not.toBe(room.groupOf(body(['uniqueUsers'])));
    expect(room.groupOf(body(['averageScroll']))).toBe(room.groupOf(body(['uniqueUsers'])));
    await clock.advance(SLOT_MS);
    const later = await ask(body(['uniqueUsers']), body(['averageScroll']));
    expect(later.map(metricsOf)).toEqual([[['uniqueUsers', 11]], [['averageScroll', 13]]]);
  });

  it('splits waiting asks of several operations the same way when their merged query names a metric outside the plan', async () => {
    const { clock, vendor, room } = setUp([Metric.CPM]);
    await room.ask([OTHER_KIND], clock.now() + DEADLINE_MS);
    const deadline = clock.now() + 4 * SLOT_MS;
    const views = room.ask([body(['pageViewsTotal'])], deadline);
    const cpm = room.ask([body([Metric.CPM])], deadline);
    await settle();

    await clock.advance(3 * SLOT_MS);

    expect(metricsOf((await views)[0])).toEqual([['pageViewsTotal', 14]]);
    expect((await cpm)[0]).toMatchObject({ kind: 'metric_unavailable' });
    expect(vendor.sent.slice(1).map((sent) => sent.metrics)).toEqual([[Metric.CPM, 'pageViewsTotal'], ['pageViewsTotal'], [Metric.CPM]]);
  });

  it('gives every merged ask any other failure, and does not wait on it', async () => {
    const clock = new FakeClock(0);
    const sent: DashboardQueryBody[] = [];
    const failing: BudgetQueueOptions['reporting'] = {
      query: (asked) => {
        sent.push(asked);
        return Promise.reject(new Error('connection refused'));
      },
      budget: fakeBudget(clock, SLOT_MS),
    };
    const queue = new BudgetQueue({ observer: NO_OBSERVER, reporting: failing, clock, outsideShare: 0, plan: new MetricPlan() });
    const room = new DashboardAsks({ queue });

    const answers = await room.ask([body(['pageViewsTotal']), body(['uniqueUsers'])], DEADLINE_MS);

    expect(answers.map((answer) => (answer instanceof Error ? answer.message : answer))).toEqual([
      'connection refused',
      'connection refused',
    ]);
    expect(sent).toHaveLength(1);
  });
});
