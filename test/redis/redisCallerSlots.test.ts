/**
 * The fair share counted for the cluster (issue 28 item 4): two budget
 * queues ("replicas") on one real redis-server share the callers' ledger
 * (src/redis/reporting/redisCallerSlots.ts). A caller that spent its share
 * through one replica is refused at once on the other, with retryAfter and
 * no try at its endpoint; with Redis away each replica counts its own; a bad
 * member or a key of another type is repaired, counted, and the charge
 * written again.
 */
import { NO_OBSERVER } from '../../src/kernel/observer';
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { DashboardAsks } from '../../src/reporting/dashboard/dashboardAsks';
import { sharedCallerSlots } from '../../src/redis/reporting/redisCallerSlots';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { failurePolicyOf, UpstreamError } from '../../src/kernel/failures/upstreamError';
import { eventually, redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';
import { FakeClock, fakeDashboard, lastDaysDashboard } from '../reporting/support/tablesFakes';

const START = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOT_MS = 10_000;
const WINDOW_MS = 60_000;
const CONFIG = { analytics: { dashboardShareWindowSeconds: WINDOW_MS / 1000 } };

function shareRefusal(result: unknown): UpstreamError {
  expect(result).toBeInstanceOf(UpstreamError);
  const error = result as UpstreamError;
  expect(error.kind).toBe('caller_share_spent');
  expect(failurePolicyOf(error)).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', waitForSlot: false });
  return error;
}

describeWithRedis('the fair share shared by the replicas on Redis', () => {
  const harness = redisHarness();

  /** One replica: its own endpoint (one slot every 10 s), queue and dashboards, on the one Redis and the test's clock. */
  async function replica(clock: FakeClock, slotsPerCaller = 2) {
    const { redis, refusals } = await harness.replica({ retryAfterMs: 60_000 });
    const ledger = sharedCallerSlots(redis, CONFIG);
    const endpoint = fakeDashboard({ clock, slotMs: SLOT_MS, urls: ['https://news.example/a'] });
    const queue = new BudgetQueue({
      observer: NO_OBSERVER,
      reporting: endpoint,
      clock,
      plan: new MetricPlan(),
      outsideShare: 0.5,
      callerShare: { slotsPerCaller, windowMs: WINDOW_MS },
      sharedCallerSlots: ledger,
    });
    const dashboards = new DashboardAsks({ queue });
    const ask = async (body: DashboardQueryBody, caller: string) => (await dashboards.ask([body], clock.now() + 20_000, caller))[0];
    return { redis, refusals, ledger, endpoint, queue, ask };
  }

  it('a caller that spent its share through replica A is refused at once on replica B, with retryAfter; another caller is answered there', async () => {
    const clock = new FakeClock(START);
    const a = await replica(clock);
    const b = await replica(clock);

    expect(await a.ask(lastDaysDashboard(1), 'greedy')).not.toBeInstanceOf(Error);
    await clock.advance(SLOT_MS);
    expect(await a.ask(lastDaysDashboard(2), 'greedy')).not.toBeInstanceOf(Error);
    await a.ledger.written();
    await clock.advance(SLOT_MS);

    const tries = b.endpoint.sent.length + b.endpoint.refusals;
    // Two slots in the last minute through A: B refuses the third until A's first leaves the window (40 s on).
    expect(shareRefusal(await b.ask(lastDaysDashboard(3), 'greedy')).retryAfterSeconds).toBe(40);
    expect(b.endpoint.sent.length + b.endpoint.refusals).toBe(tries);
    expect(await b.ask(lastDaysDashboard(3), 'editor')).not.toBeInstanceOf(Error);
    expect(b.endpoint.sent).toHaveLength(1);

    // A slot spent through B counts on A too, each once (A's own charges and what it reads of them are not added twice).
    await b.ledger.written();
    await clock.advance(40_000);
    expect(await a.ask(lastDaysDashboard(4), 'greedy')).not.toBeInstanceOf(Error);
    await a.ledger.written();
    expect(shareRefusal(await b.ask(lastDaysDashboard(5), 'greedy')).retryAfterSeconds).toBe(10);
    a.queue.close();
    b.queue.close();
  });

  it('the keys expire a window after the last charge', async () => {
    const clock = new FakeClock(START);
    const a = await replica(clock);
    expect(await a.ask(lastDaysDashboard(1), 'greedy')).not.toBeInstanceOf(Error);
    await a.ledger.written();
    const admin = await harness.admin();
    for (const key of ['test:reporting:callers:greedy', 'test:reporting:callers-spent']) {
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(WINDOW_MS - 5_000);
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    }
    a.queue.close();
  });

  it('with Redis away each replica counts its own: nothing is refused for the outage, and A still refuses its own greedy caller', async () => {
    const clock = new FakeClock(START);
    const a = await replica(clock);
    const b = await replica(clock);
    await harness.server().stop();
    try {
      expect(await a.ask(lastDaysDashboard(1), 'greedy')).not.toBeInstanceOf(Error);
      await clock.advance(SLOT_MS);
      expect(await a.ask(lastDaysDashboard(2), 'greedy')).not.toBeInstanceOf(Error);
      await a.ledger.written();
      await clock.advance(SLOT_MS);
      expect(shareRefusal(await a.ask(lastDaysDashboard(3), 'greedy')).retryAfterSeconds).toBe(40);
      // B never heard of A's charges: its own count has room.
      expect(await b.ask(lastDaysDashboard(3), 'greedy')).not.toBeInstanceOf(Error);
    } finally {
      await harness.server().start();
      a.queue.close();
      b.queue.close();
    }
  });

  it('a bad member is removed and counted, its good neighbours still count; a key of another type is repaired and the charge written again', async () => {
    const clock = new FakeClock(START);
    const a = await replica(clock, 1);
    const b = await replica(clock, 1);
    const admin = await harness.admin();
    await admin.zadd(
      'test:reporting:callers:greedy',
      START - 1_000,
      'not a charge',
      START + 86_400_000,
      '00000000-0000-0000-0000-000000000000:1|1',
      START - 2_000,
      '11111111-1111-1111-1111-111111111111:7|2',
      START - 3_000,
      '22222222-2222-2222-2222-222222222222:3|1',
    );
    await admin.set('test:reporting:callers:editor', 'not a sorted set');
    await admin.set('test:reporting:callers-spent', 'not a sorted set');

    // The one good charge (3 s ago) fills the greedy caller's share of one: refused until it leaves the window.
    expect(shareRefusal(await b.ask(lastDaysDashboard(1), 'greedy')).retryAfterSeconds).toBe(57);
    // The removals go on B's connection in the background.
    await eventually(async () => (await admin.zcard('test:reporting:callers:greedy')) === 1);
    expect(await admin.zrange('test:reporting:callers:greedy', '0', '-1')).toEqual(['22222222-2222-2222-2222-222222222222:3|1']);
    expect(b.refusals.filter((reason) => reason === 'BADVALUE').length).toBeGreaterThanOrEqual(3);

    // The editor's key of another type: its charge through A is written after the repair, and B refuses the editor's next ask.
    expect(await a.ask(lastDaysDashboard(2), 'editor')).not.toBeInstanceOf(Error);
    await a.ledger.written();
    expect(await admin.type('test:reporting:callers:editor')).toBe('zset');
    expect(await admin.type('test:reporting:callers-spent')).toBe('zset');
    expect(a.refusals).toContain('BADVALUE');
    await clock.advance(SLOT_MS);
    expect(shareRefusal(await b.ask(lastDaysDashboard(3), 'editor')).retryAfterSeconds).toBe(50);
    a.queue.close();
    b.queue.close();
  });
});
