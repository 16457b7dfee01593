/**
 * The live API's answer to a metric outside the account's plan: 200 with an
 * empty body (contract §2). Against the emulator's realistic profile, whose
 * plan leaves out the ad and revenue metrics: a coded error naming the
 * metrics, exactly one request each time (never retried, never cached), and
 * never an open circuit for the metrics the plan does include.
 */
import type { RunningEmulator } from '../../emulator';
import { postGraphQL } from '../support/federationGateway';
import { readStats, resetStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;

beforeAll(async () => {
  // The realistic plan and tokens; a budget that lets the test ask many times within one emulator minute.
  emulator = await startSmallEmulator({ profile: 'realistic', rates: { reportingPerMinute: 600 } });
  subgraph = await startSubgraph(emulator, { timeoutMs: 10_000 });
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

const dashboard = (metrics: string) =>
  `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [${metrics}] }) { metric total } }`;

describe('a metric outside the plan (200 with an empty body)', () => {
  it('is UPSTREAM_METRIC_UNAVAILABLE naming the metrics, one request per ask, never cached, never opening the circuit', async () => {
    await resetStats(emulator);
    const asks = 6; // beyond the breaker's threshold of 5 consecutive failures
    for (let ask = 1; ask <= asks; ask += 1) {
      const result = await postGraphQL(subgraph.graphqlUrl, dashboard('CPM, PAGE_VIEWS_TOTAL'));
      expect(result.data).toEqual({ dashboard: null });
      expect(result.errors?.[0].extensions?.code).toBe('UPSTREAM_METRIC_UNAVAILABLE');
      expect(result.errors?.[0].extensions?.metrics).toEqual(['CPM', 'PAGE_VIEWS_TOTAL']);
      expect(result.errors?.[0].message).toContain('CPM');
      expect((await readStats(emulator)).dashboard.count).toBe(ask);
    }

    const planned = await postGraphQL<{ dashboard: { metric: string }[] }>(subgraph.graphqlUrl, dashboard('PAGE_VIEWS_TOTAL'));
    expect(planned.errors).toBeUndefined();
    expect(planned.data?.dashboard.map((result) => result.metric)).toEqual(['PAGE_VIEWS_TOTAL']);
    expect((await readStats(emulator)).dashboard.count).toBe(asks + 1);
  });
});
