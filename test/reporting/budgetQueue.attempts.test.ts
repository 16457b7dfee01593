/**
 * The vendor counts HTTP attempts, so the budget queue does too (issue 37,
 * item 1): a dashboard query whose first attempt failed (a 503) and whose
 * retry was answered reached the vendor twice, and the caller's fair share
 * counts both. The reporting service as the process composes it, over the
 * real call path (createUpstreams: token, retry, governor, transport) to a
 * fake vendor on an ephemeral port.
 */
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import { createReportingService, type ReportingService } from '../../src/reporting/reportingService';
import { MemoryTableStore } from '../../src/reporting/tables/tableStore';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { NO_OBSERVER } from '../../src/kernel/observer';
import { SYSTEM_CLOCK } from '../../src/kernel/clock';
import { Secret } from '../../src/redaction/secret';
import { createLogger } from '../../src/observability/logger';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { sendJson, useFakeUpstream, type FakeHandler } from '../support/fakeUpstream';
import { DEFAULT_UPSTREAM_PATH, upstreamOptions } from '../support/upstreamOptions';
import { testConfig } from '../support/config';
import { freeBudget } from '../support/freeBudget';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';
import { DASHBOARD_WHERE, FakeClock, fakeDashboard, lastDaysDashboard, tableAsksIn } from './support/tablesFakes';

const DASHBOARD_PATH = '/api/dashboard/query';
const upstream = useFakeUpstream();
let upstreams: Upstreams | undefined;
let service: ReportingService | undefined;

afterEach(async () => {
  service?.close();
  await upstreams?.close();
  service = undefined;
  upstreams = undefined;
});

/** The vendor: signs in, and answers each dashboard query with `statuses` in turn (the last repeats), 200 with the metric's result. */
function vendor(...statuses: number[]): FakeHandler {
  let queries = 0;
  return (request, response) => {
    if (request.path !== DASHBOARD_PATH) return sendJson(response, 200, { token: 'token-1' });
    const status = statuses[Math.min(queries, statuses.length - 1)];
    queries += 1;
    if (status !== 200) return sendJson(response, status, { msg: 'unavailable' });
    sendJson(response, 200, [
      { metric: 'pageViewsTotal', total: 7, granularity: 'daily', availableGranularities: ['daily'], actualData: { values: [], data: [] } },
    ]);
  };
}

/** A budget of 600 queries a minute (no refusal for want of a slot); each caller may spend 2 slots over the share's window. */
function setUp() {
  const charged = new Map<string, number>();
  const defaults = testConfig();
  const config = testConfig({
    governor: { ...defaults.governor, reportingPerMinute: 600 },
    analytics: { dashboardSharePerCaller: 2 / 600, dashboardShareWindowSeconds: 60 },
  });
  upstreams = createUpstreams(
    upstreamOptions({
      reportingBaseUrl: upstream.url,
      recommenderUrl: upstream.url,
      email: 'api@demo.example',
      password: new Secret('secret'),
      logger: createLogger({ logLevel: 'silent' }),
      // Short backoff: the retry goes at once.
      backoff: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 },
      protection: { governor: { ...DEFAULT_UPSTREAM_PATH.protection.governor, reportingPerMinute: 600 } },
    }),
  );
  service = createReportingService({
    dashboard: upstreams.reporting,
    config,
    clock: SYSTEM_CLOCK,
    tableStore: new MemoryTableStore(),
    tablesShared: false,
    board: undefined,
    callerSlots: undefined,
    observer: { ...NO_OBSERVER, callerSlotsSpent: (caller, slots) => charged.set(caller, (charged.get(caller) ?? 0) + slots) },
    refreshes: new TableRefreshes(),
  });
  const dashboards = service.dashboards;
  const ask = (days: number, caller: string) =>
    dashboards.ask([lastDaysDashboard(days, 'pageViewsTotal')], Date.now() + 20_000, caller).then(([answer]) => answer);
  return { charged, ask };
}

const dashboardAttempts = () => upstream.requests.filter((request) => request.path === DASHBOARD_PATH).length;

describe('the fair share counts attempts, as the vendor does', () => {
  it('a query answered on its retry (a 503, then 200) spends two of its caller’s slots: the caller’s next ask is over its share', async () => {
    upstream.handle(vendor(503, 200));
    const { charged, ask } = setUp();

    const first = await ask(1, 'caller-a');
    expect(first).not.toBeInstanceOf(Error);
    expect(dashboardAttempts()).toBe(2);
    expect(charged.get('caller-a')).toBe(2);

    // Two slots of a share of two: the next distinct ask is refused before any try.
    const second = await ask(2, 'caller-a');
    expect(second).toBeInstanceOf(UpstreamError);
    expect((second as UpstreamError).kind).toBe('caller_share_spent');
    expect(dashboardAttempts()).toBe(2);
  });

  it('a query answered at once spends one slot: the caller’s next ask still goes', async () => {
    upstream.handle(vendor(200));
    const { charged, ask } = setUp();

    await ask(1, 'caller-a');
    expect(charged.get('caller-a')).toBe(1);
    const second = await ask(2, 'caller-a');
    expect(second).not.toBeInstanceOf(Error);
    expect(dashboardAttempts()).toBe(2);
  });
});

describe('the outside share counts attempts too', () => {
  /**
   * The fake vendor's endpoint behind a query whose first attempt failed and was retried: each query the queue sends
   * asks its grant twice (two attempts, as the retry stage asks for each), from a budget that always has a slot.
   */
  function retryingEndpoint(clock: FakeClock) {
    const vendor = fakeDashboard({ clock, slotMs: 60_000, urls: ['https://news.example/a', 'https://news.example/b'] });
    const budget = freeBudget();
    return {
      vendor,
      endpoint: {
        budget,
        query: async (body: DashboardQueryBody, grant?: SlotGrant) => {
          // The first attempt (a 503 the retry stage retries), then the retry that is answered.
          await grant?.(DASHBOARD_WHERE, undefined);
          await grant?.(DASHBOARD_WHERE, 10_000);
          return vendor.query(body, async () => undefined);
        },
      },
    };
  }

  it('an ask outside the tables answered on its retry spent two of the outside share’s slots: the next outside ask is owed the slot two later', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 28, 12));
    const { vendor, endpoint } = retryingEndpoint(clock);
    const queue = new BudgetQueue({ observer: NO_OBSERVER, reporting: endpoint, clock, plan: new MetricPlan(), outsideShare: 0.5 });
    const tables = tableAsksIn(queue, endpoint);

    const week = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');
    const urls = ['https://news.example/b'];
    await tables.wait({ spec: week, urls, articles: urls, metrics: ['pageViewsTotal'] }, clock.now() + 20_000);
    expect(vendor.sent).toHaveLength(1);

    // Two attempts outside the tables, none for whole tables: at a share of one half, the outside asks are over it
    // for the next two slots (counting one, they would be owed the very next slot but one).
    expect(queue.slotForOutsideAsks() - clock.now()).toBe(2 * queue.slotMs);
    queue.close();
  });
});
