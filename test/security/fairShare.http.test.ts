/**
 * The fair share of the reporting budget (issue 28 item 4, issue 34 item 1)
 * over real HTTP against a real emulator, behind the router secret.
 *
 * - By default the `apollographql-client-name` header is a label, never an
 *   identity: every caller without a verified identity shares one share, so
 *   a caller that renames itself on every request gets one share in total,
 *   and its refused asks make 0 upstream calls (the emulator's counts).
 * - With CALLER_NAME_HEADER_TRUSTED (the router sets the name from something
 *   it verified), two named callers get a share each: the greedy one, over
 *   its share, gets UPSTREAM_RATE_LIMITED with retryAfter at once and 0
 *   upstream calls; the other caller's asks are answered; a dashboard fetched
 *   before is still answered from the cache (it costs nothing); the metrics
 *   count both per caller.
 */
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, EMBEDDED_GOVERNOR_CONFIG, type CallerAuthConfig } from '../../src/config';
import { Metrics } from '../../src/observability/metrics/metrics';
import { readStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import { callerAuth, postGraphQL, ROUTER_SECRET, type GraphQLAnswer } from './support';

/** 0.005 of 600 slots a minute over 60 s: 3 slots per caller a minute. */
const SHARE = { dashboardSharePerCaller: 0.005, dashboardShareWindowSeconds: 60 };
const SLOTS_PER_CALLER = 3;

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startSmallEmulator();
});

afterAll(async () => {
  await emulator?.close();
});

async function dashboardQueries(): Promise<number> {
  return (await readStats(emulator)).dashboard.count;
}

function withSubgraph(auth: CallerAuthConfig, metrics: Metrics): () => RunningSubgraph {
  let subgraph: RunningSubgraph;
  beforeAll(async () => {
    subgraph = await startSubgraph(emulator, {
      metrics,
      config: {
        callerAuth: auth,
        analytics: { ...DEFAULT_ANALYTICS_CONFIG, ...SHARE },
        governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 600 },
      },
    });
  });
  afterAll(async () => {
    await subgraph?.close();
  });
  return () => subgraph;
}

/** A distinct dashboard per `days` (no two share an answer or a query; each subgraph asks its own range of days). */
function askDashboard(subgraph: RunningSubgraph, client: string, days: number): Promise<GraphQLAnswer> {
  return postGraphQL(
    subgraph.graphqlUrl,
    `{ dashboard(query: { dates: { last: { number: ${days}, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }`,
    { headers: { 'x-router-secret': ROUTER_SECRET, 'apollographql-client-name': client } },
  );
}

describe('the client name is only a label (default)', () => {
  const subgraph = withSubgraph(callerAuth(['router-secret']), new Metrics({ processMetrics: false, operationNameLimit: 10 }));

  test('a caller renaming itself on every request gets one share in total; each refused ask makes 0 upstream calls', async () => {
    let answered = 0;
    for (let days = 31; days <= 31 + SLOTS_PER_CALLER + 5; days += 1) {
      const before = await dashboardQueries();
      const answer = await askDashboard(subgraph(), `renamer-${days}`, days);
      if (answer.body.errors === undefined) {
        answered += 1;
        continue;
      }
      expect(answer.body.errors[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryAfter: expect.any(Number) });
      expect(await dashboardQueries()).toBe(before);
    }
    expect(answered).toBe(SLOTS_PER_CALLER);
  });
});

describe('CALLER_NAME_HEADER_TRUSTED: the router-set name is the identity', () => {
  // raw: the series are read by the callers' names (the default label is a keyed hash: test/security/metricsPrivacy.http.test.ts).
  const metrics = new Metrics({ processMetrics: false, operationNameLimit: 10, callerLabel: { mode: 'raw' } });
  const subgraph = withSubgraph({ ...callerAuth(['router-secret']), clientNameTrusted: true }, metrics);

  test("the greedy caller is refused at once with retryAfter and 0 upstream calls once its share is spent; the other caller's asks are answered", async () => {
    for (let days = 1; days <= SLOTS_PER_CALLER; days += 1) {
      const answered = await askDashboard(subgraph(), 'greedy-dashboards', days);
      expect(answered.body.errors).toBeUndefined();
    }
    const before = await dashboardQueries();

    for (let days = SLOTS_PER_CALLER + 1; days <= SLOTS_PER_CALLER + 3; days += 1) {
      const started = Date.now();
      const refused = await askDashboard(subgraph(), 'greedy-dashboards', days);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
      const retryAfter = refused.body.errors?.[0].extensions?.retryAfter as number;
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(SHARE.dashboardShareWindowSeconds);
    }
    expect(await dashboardQueries()).toBe(before);

    // A cached answer costs nothing: over its share, the greedy caller is still answered a dashboard it fetched before, with no query.
    const cached = await askDashboard(subgraph(), 'greedy-dashboards', 1);
    expect(cached.body.errors).toBeUndefined();
    expect(cached.body.data?.dashboard).toEqual([expect.objectContaining({ metric: 'PAGE_VIEWS_TOTAL' })]);
    expect(await dashboardQueries()).toBe(before);

    for (let days = 11; days <= 12; days += 1) {
      const answered = await askDashboard(subgraph(), 'newsroom-editor', days);
      expect(answered.body.errors).toBeUndefined();
      expect(answered.body.data?.dashboard).toEqual([expect.objectContaining({ metric: 'PAGE_VIEWS_TOTAL' })]);
    }
    expect(await dashboardQueries()).toBe(before + 2);

    const scrape = await metrics.registry.metrics();
    expect(scrape).toContain(`subgraph_reporting_caller_slots_total{caller="greedy-dashboards"} ${SLOTS_PER_CALLER}`);
    expect(scrape).toContain('subgraph_reporting_caller_slots_total{caller="newsroom-editor"} 2');
    expect(scrape).toContain('subgraph_reporting_caller_refusals_total{caller="greedy-dashboards"} 3');
  });
});
