/**
 * Dashboard asks that differ only in their metrics share one query (issue 21,
 * point 3), over real HTTP against the emulator's realistic profile. Every
 * dashboard body that reaches the emulator is recorded by a proxy in front of
 * it.
 *
 * With the real budget (one query a minute, 429 beyond) and the subgraph's
 * governor at one a minute: the fields of one operation are one query at once;
 * operations arriving while the budget is spent wait for the next slot and
 * share ONE query; an answer the cache holds never waits. The subgraph's clock
 * (governor, deadlines, budget queue) is injected and the emulator's advanced
 * by the same amounts, so nothing waits a real minute.
 *
 * With a budget that grants every query (metric outside the plan): the merged
 * query's empty body fails only the fields naming the unplanned metric.
 */
import { NO_OBSERVER } from '../../src/kernel/observer';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, EMBEDDED_GOVERNOR_CONFIG } from '../../src/config';
import { Metric } from '../../contract';
import type { DashboardMetricResultWire, DashboardQueryBody } from '../../src/kernel/wire';
import type { Upstreams } from '../../src/upstream/upstreams';
import type { BuiltServer } from '../../src/web/server';
import type { Clock } from '../../src/kernel/clock';
import type { Observer } from '../../src/kernel/observer';
import { buildTestServer } from '../support/services';
import { startBodyRecorder, type BodyRecorder } from '../support/bodyRecorder';
import { testConfig } from '../support/config';
import { demoUpstreams } from '../support/demoUpstreams';
import { apiToken, call } from '../support/emulator';
import { postGraphQL } from '../support/federationGateway';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import { advanceClock, emulatorNow, readStats, resetStats, startSmallEmulator } from '../support/subgraphHttp';
import type { ProtectionOverrides } from '../support/upstreamOptions';
import { FakeClock } from './support/tablesFakes';

jest.setTimeout(30_000);

const DAY_MS = 86_400_000;
/** The governor's interval at one a minute (RATE_WINDOW_MS): the next slot after a query. */
const SLOT_MS = 63_000;

interface Result {
  metric: string;
  total: number;
}

type Answer = Awaited<ReturnType<typeof postGraphQL<Record<string, Result[] | null>>>>;

interface Rig {
  emulator: RunningEmulator;
  recorder: BodyRecorder;
  upstreams: Upstreams;
  server: BuiltServer;
  graphqlUrl: string;
  token: string;
  /** The emulator's today (epoch ms): windows are whole days before it. */
  today: number;
}

async function startRig(options: {
  rates?: { reportingPerMinute: number };
  protection: ProtectionOverrides;
  /** The subgraph's one clock (the queue's, the asks' deadlines); default the system's. */
  clock?: Clock;
  /** The budget queue's observer (asks waiting for a slot); default none. */
  observer?: Observer;
}): Promise<Rig> {
  const emulator = await startSmallEmulator({ profile: 'realistic', ...(options.rates === undefined ? {} : { rates: options.rates }) });
  const recorder = await startBodyRecorder(emulator.url);
  const upstreams = demoUpstreams({
    reportingBaseUrl: recorder.url,
    recommenderUrl: emulator.url,
    timeoutMs: 5_000,
    protection: options.protection,
  });
  const config = testConfig({
    renderMaxConcurrency: 4,
    cache: DEFAULT_CACHE_TTLS,
    // Every dashboard ask one caller's: its fair share is the whole budget, so only the merge rule is under test here.
    analytics: { ...DEFAULT_ANALYTICS_CONFIG, dashboardSharePerCaller: 1 },
    // The queue's lead and rate are the governor's the rig protects the endpoint with.
    ...(options.protection.governor === undefined ? {} : { governor: options.protection.governor }),
    responseCacheEnabled: false,
  });
  const server = buildTestServer(config, {
    dashboard: upstreams.reporting,
    recommender: upstreams.recommender,
    logger: silentLogger,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  const graphqlUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;
  const token = await apiToken(emulator);
  const today = (await emulatorNow(emulator)).getTime();
  await resetStats(emulator);
  return { emulator, recorder, upstreams, server, graphqlUrl, token, today };
}

async function stopRig(rig: Rig | undefined): Promise<void> {
  await rig?.server.stop();
  await rig?.upstreams.close();
  await rig?.recorder.close();
  await rig?.emulator.close();
}

/** Seven whole days ending `daysAgo` before the emulator's today: each test its own window, so no answer comes from another's cache. */
function week(rig: Rig, daysAgo: number): { start: string; end: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { start: day(rig.today - (daysAgo + 6) * DAY_MS), end: day(rig.today - daysAgo * DAY_MS) };
}

const field = (alias: string, window: { start: string; end: string }, metrics: string) =>
  `${alias}: dashboard(query: { dates: { range: { start: "${window.start}", end: "${window.end}" } }, metrics: [${metrics}] }) { metric total }`;

const ask = (rig: Rig, ...fields: string[]): Promise<Answer> => postGraphQL(rig.graphqlUrl, `{ ${fields.join(' ')} }`);

/** An ungrouped body as the vendor receives it (the datasource fills `limit` and `from`): a merged one orders by the first metric of the sorted union. */
function ungrouped(window: { start: string; end: string }, metrics: DashboardQueryBody['metrics']): DashboardQueryBody {
  return { dates: { range: window }, filters: [], groupBy: [], metrics, order: { metric: metrics[0], sort: 'DESC' }, limit: 100, from: 0 };
}

/** The emulator's own totals for a body, asked directly once its budget allows (after the stats are read). */
async function directTotals(rig: Rig, body: DashboardQueryBody): Promise<Record<string, number>> {
  await advanceClock(rig.emulator, SLOT_MS / 1000);
  const response = await call<DashboardMetricResultWire[]>(rig.emulator, '/api/dashboard/query', { body, token: rig.token });
  expect(response.status).toBe(200);
  return Object.fromEntries(response.body.map((result) => [result.metric, result.total]));
}

function totalsOf(answer: Answer, alias: string): [string, number][] {
  return (answer.data?.[alias] ?? []).map((result) => [result.metric, result.total]);
}

describe('with the real budget: one query a minute', () => {
  const clock = new FakeClock(Date.now());
  let rig: Rig;
  let waiting = 0;
  const watchers: { count: number; reached: () => void }[] = [];

  /** Resolves once exactly `count` dashboard asks wait for a slot (an event of the budget queue, not a sleep). */
  function asksWaiting(count: number): Promise<void> {
    if (waiting === count) return Promise.resolve();
    return new Promise((reached) => watchers.push({ count, reached }));
  }

  function onWaiting(count: number): void {
    waiting = count;
    for (const watcher of [...watchers]) {
      if (watcher.count !== count) continue;
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.reached();
    }
  }

  /** Moves the subgraph's clock and the emulator's by the same amount. */
  async function advanceBoth(ms: number): Promise<void> {
    await advanceClock(rig.emulator, ms / 1000);
    await clock.advance(ms);
  }

  beforeAll(async () => {
    rig = await startRig({
      // One a minute, as on a real host; refused at once rather than queued, so asks wait on the injected clock.
      protection: { now: () => clock.now(), governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 1, queueTimeoutMs: 0 } },
      clock,
      observer: { ...NO_OBSERVER, asksWaiting: (_kind, count) => onWaiting(count) },
    });
  });

  afterAll(() => stopRig(rig));

  it('(a) sends the dashboard fields of one operation that differ only in metrics as ONE query carrying the union', async () => {
    const window = week(rig, 1);
    const answer = await ask(rig, field('views', window, 'PAGE_VIEWS_TOTAL'), field('readers', window, 'UNIQUE_USERS, AVERAGE_SCROLL'));

    expect(answer.errors).toBeUndefined();
    const merged = ungrouped(window, ['averageScroll', 'pageViewsTotal', 'uniqueUsers']);
    expect(rig.recorder.dashboards).toEqual([merged]);
    expect(totalsOf(answer, 'views').map(([metric]) => metric)).toEqual(['PAGE_VIEWS_TOTAL']);
    expect(totalsOf(answer, 'readers').map(([metric]) => metric)).toEqual(['UNIQUE_USERS', 'AVERAGE_SCROLL']);
    expect(waiting).toBe(0);
    expect(await readStats(rig.emulator)).toMatchObject({ dashboard: { count: 1 } });

    const direct = await directTotals(rig, merged);
    expect(totalsOf(answer, 'views')).toEqual([['PAGE_VIEWS_TOTAL', direct.pageViewsTotal]]);
    expect(totalsOf(answer, 'readers')).toEqual([
      ['UNIQUE_USERS', direct.uniqueUsers],
      ['AVERAGE_SCROLL', direct.averageScroll],
    ]);
    expect(direct.pageViewsTotal).toBeGreaterThan(0);
  });

  it('(b) answers two operations arriving while the budget is spent with ONE query at the next slot; (c) a cached answer never waits', async () => {
    // The slot is spent: the next one is 13 s away, within the operations' 20 s deadline.
    await advanceBoth(SLOT_MS + 2_000);
    await ask(rig, field('spend', week(rig, 30), 'PAGE_VIEWS_TOTAL'));
    await resetStats(rig.emulator);
    rig.recorder.dashboards.length = 0;
    await advanceBoth(50_000);

    const window = week(rig, 8);
    const first = ask(rig, field('views', window, 'PAGE_VIEWS_TOTAL'));
    const second = ask(rig, field('time', window, 'TOTAL_DURATION, UNIQUE_USERS'));
    await asksWaiting(2);
    expect(rig.recorder.dashboards).toEqual([]);

    await advanceBoth(SLOT_MS - 50_000 + 2_000);
    const [views, time] = await Promise.all([first, second]);
    expect(views.errors).toBeUndefined();
    expect(time.errors).toBeUndefined();
    const merged = ungrouped(window, ['pageViewsTotal', 'totalDuration', 'uniqueUsers']);
    expect(rig.recorder.dashboards).toEqual([merged]);
    expect(await readStats(rig.emulator)).toMatchObject({ dashboard: { count: 1 } });
    expect(waiting).toBe(0);

    // (c) The budget is spent again and the clock stands still: cached answers come at once, no query, no wait.
    const again = await ask(rig, field('views', window, 'PAGE_VIEWS_TOTAL'));
    const both = await ask(rig, field('time', window, 'UNIQUE_USERS'), field('views', window, 'PAGE_VIEWS_TOTAL'));
    expect(again.errors).toBeUndefined();
    expect(both.errors).toBeUndefined();
    expect(totalsOf(again, 'views')).toEqual(totalsOf(views, 'views'));
    expect(totalsOf(both, 'views')).toEqual(totalsOf(views, 'views'));
    expect(totalsOf(both, 'time')).toEqual(totalsOf(time, 'time').filter(([metric]) => metric === 'UNIQUE_USERS'));
    expect(rig.recorder.dashboards).toHaveLength(1);
    expect(waiting).toBe(0);

    // Each operation got the emulator's own numbers for its metrics.
    const direct = await directTotals(rig, merged);
    expect(totalsOf(views, 'views')).toEqual([['PAGE_VIEWS_TOTAL', direct.pageViewsTotal]]);
    expect(totalsOf(time, 'time')).toEqual([
      ['TOTAL_DURATION', direct.totalDuration],
      ['UNIQUE_USERS', direct.uniqueUsers],
    ]);
  });

  it('refuses at once with UPSTREAM_RATE_LIMITED and retryAfter an operation whose next slot comes after its deadline', async () => {
    // The slot of (b)'s query was just spent: the next is about a minute away, beyond the 20 s deadline.
    const answer = await ask(rig, field('views', week(rig, 50), 'PAGE_VIEWS_TOTAL'));

    expect(answer.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
    expect(answer.errors?.[0].extensions?.retryAfter).toBeGreaterThan(DEFAULT_ANALYTICS_CONFIG.askDeadlineMs / 1000);
    expect(rig.recorder.dashboards).toHaveLength(1);
    expect(waiting).toBe(0);
  });
});

describe('a metric outside the plan (the realistic profile answers an empty body for ad and revenue metrics)', () => {
  let rig: Rig;

  beforeAll(async () => {
    // Every query is granted a slot at once: what is tested is which fields fail, not the wait.
    rig = await startRig({
      rates: { reportingPerMinute: 600 },
      protection: { governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 600 } },
    });
  });

  afterAll(() => stopRig(rig));

  it('(d) fails only the fields naming it; the others keep their numbers, and it is merged no more', async () => {
    const window = week(rig, 15);
    const answer = await ask(rig, field('views', window, 'PAGE_VIEWS_TOTAL, UNIQUE_USERS'), field('cpm', window, 'CPM'));

    // The merged query, then each body alone (those two at once, in either order).
    expect(rig.recorder.dashboards).toHaveLength(3);
    expect(rig.recorder.dashboards[0]).toEqual(ungrouped(window, [Metric.CPM, 'pageViewsTotal', 'uniqueUsers']));
    expect(rig.recorder.dashboards.slice(1)).toEqual(
      expect.arrayContaining([ungrouped(window, ['pageViewsTotal', 'uniqueUsers']), ungrouped(window, [Metric.CPM])]),
    );
    expect(answer.data?.cpm).toBeNull();
    expect(answer.errors?.map((error) => [error.path, error.extensions?.code, error.extensions?.metrics])).toEqual([
      [['cpm'], 'UPSTREAM_METRIC_UNAVAILABLE', ['CPM']],
    ]);
    const direct = await directTotals(rig, ungrouped(window, ['pageViewsTotal', 'uniqueUsers']));
    expect(totalsOf(answer, 'views')).toEqual([
      ['PAGE_VIEWS_TOTAL', direct.pageViewsTotal],
      ['UNIQUE_USERS', direct.uniqueUsers],
    ]);

    // CPM is now known to spoil merges: a later operation sends it apart, and the rest still merge.
    rig.recorder.dashboards.length = 0;
    const later = week(rig, 22);
    const next = await ask(
      rig,
      field('views', later, 'PAGE_VIEWS_TOTAL'),
      field('scroll', later, 'AVERAGE_SCROLL'),
      field('cpm', later, 'CPM'),
    );
    expect(next.errors?.map((error) => error.path)).toEqual([['cpm']]);
    expect(rig.recorder.dashboards).toHaveLength(2);
    expect(rig.recorder.dashboards).toEqual(
      expect.arrayContaining([ungrouped(later, ['averageScroll', 'pageViewsTotal']), ungrouped(later, [Metric.CPM])]),
    );
  });
});
