/**
 * Dashboard filters on the wire as the live API takes them, `{filter, op,
 * value}` (contract §2 [seen]), over real HTTP: the subgraph's filtered
 * `dashboard` gets the emulator's own answer to that body, and the emulator
 * refuses the earlier key names, so a regression to them fails here.
 */
import type { RunningEmulator } from '../../emulator';
import { apiToken, call, dashboardQuery, type ErrorBody } from '../support/emulator';
import { postGraphQL } from '../support/federationGateway';
import { readStats, resetStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;
let token: string;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  subgraph = await startSubgraph(emulator);
  token = await apiToken(emulator);
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

beforeEach(() => resetStats(emulator));

const WIRE_FILTERS = [
  { filter: 'deviceType', op: 'eq', value: ['mobile'] },
  { filter: 'section', op: 'neq', value: ['Sport'] },
];

async function directTotal(filters: unknown[]): Promise<number> {
  const response = await call<{ total: number }[]>(emulator, '/api/dashboard/query', { token, body: dashboardQuery({ filters }) });
  expect(response.status).toBe(200);
  return response.body[0].total;
}

describe('filters on the wire', () => {
  it('a filtered dashboard is sent as {filter, op, value} and answered with the filters applied', async () => {
    const result = await postGraphQL<{ dashboard: { total: number }[] }>(
      subgraph.graphqlUrl,
      `{ dashboard(query: {
          dates: { last: { number: 30, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], granularity: DAILY,
          filters: [{ dimension: DEVICE_TYPE, operator: EQ, values: ["mobile"] }, { dimension: SECTION, operator: NEQ, values: ["Sport"] }]
        }) { total } }`,
    );
    expect(result.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(1);
    const filtered = await directTotal(WIRE_FILTERS);
    expect(result.data?.dashboard[0].total).toBe(filtered);
    expect(filtered).toBeGreaterThan(0);
    expect(filtered).toBeLessThan(await directTotal([]));
  });

  it('the emulator answers the earlier key names with a 400 naming each', async () => {
    const response = await call<ErrorBody>(emulator, '/api/dashboard/query', {
      token,
      body: dashboardQuery({ filters: [{ dimension: 'deviceType', operator: 'eq', values: ['mobile'] }] }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toEqual(
      expect.arrayContaining(['filters[0].dimension', 'filters[0].operator', 'filters[0].values']),
    );
  });
});
