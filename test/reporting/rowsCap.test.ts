/**
 * REPORTING_MAX_ROWS over real HTTP against the emulator's realistic profile
 * (at most 500 rows per page): a larger `limit` is refused before any
 * upstream call instead of being silently cut.
 */
import type { RunningEmulator } from '../../emulator';
import { postGraphQL } from '../support/federationGateway';
import { advanceClock, readStats, resetStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;

beforeAll(async () => {
  emulator = await startSmallEmulator({ profile: 'realistic', scale: 0.05 });
  subgraph = await startSubgraph(emulator, { timeoutMs: 10_000 });
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

// One dashboard query a minute: each test starts with a full budget.
beforeEach(async () => {
  await advanceClock(emulator, 60);
  await resetStats(emulator);
});

const DASHBOARD = `query Rows($limit: Int) {
  dashboard(query: { dates: { last: { number: 30, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [URL, SOURCE, DEVICE_TYPE], limit: $limit }) {
    rows { key }
  }
}`;

describe('the rows cap (REPORTING_MAX_ROWS, default 500)', () => {
  it('refuses limit 501 with BAD_USER_INPUT naming 500, before any upstream call', async () => {
    const result = await postGraphQL(subgraph.graphqlUrl, DASHBOARD, { limit: 501 });
    expect(result.errors).toHaveLength(1);
    expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0].message).toContain('query.limit: must be from 1 to 500');
    const stats = await readStats(emulator);
    expect(stats.dashboard.count).toBe(0);
    expect(stats.signin.count).toBe(0);
  });

  it('sends limit 500 as one dashboard query and gets 500 rows', async () => {
    const result = await postGraphQL<{ dashboard: { rows: unknown[] }[] }>(subgraph.graphqlUrl, DASHBOARD, { limit: 500 });
    expect(result.errors).toBeUndefined();
    expect(result.data?.dashboard[0].rows).toHaveLength(500);
    expect((await readStats(emulator)).dashboard.count).toBe(1);
  });

  it('takes the cap from the configuration: REPORTING_MAX_ROWS=100 refuses limit 101, naming 100', async () => {
    const capped = await startSubgraph(emulator, { timeoutMs: 10_000, config: { reportingMaxRows: 100 } });
    try {
      const result = await postGraphQL(capped.graphqlUrl, DASHBOARD, { limit: 101 });
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(result.errors?.[0].message).toContain('query.limit: must be from 1 to 100');
      expect((await readStats(emulator)).dashboard.count).toBe(0);
    } finally {
      await capped.close();
    }
  });
});
