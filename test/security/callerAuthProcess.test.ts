/**
 * `npm start` as a real process: in production against the real hosts (here
 * the emulator, configured as remote) it refuses to start until CALLER_AUTH
 * is set, naming it; set, the start-up log says which proofs are required and
 * /graphql refuses a request without them.
 */
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { startTestEmulator } from '../support/emulator';
import { listeningUrl, logLine, startSubgraphProcess, type SubgraphProcess } from '../support/subgraphProcess';
import { postGraphQL, ROUTER_SECRET } from './support';

let emulator: RunningEmulator;
const running: SubgraphProcess[] = [];

beforeAll(async () => {
  emulator = await startTestEmulator();
});

afterAll(async () => {
  for (const subgraph of running) await subgraph.kill();
  await emulator?.close();
});

function productionEnv(extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'production',
    PORT: '0',
    REPORTING_BASE_URL: emulator.url,
    RECOMMENDER_URL: emulator.url,
    REPORTING_EMAIL: DEMO_API_USER.email,
    REPORTING_PASSWORD: DEMO_API_USER.password,
    SHUTDOWN_DELAY_SECONDS: '0',
    ...extra,
  };
}

test('production against the real hosts without CALLER_AUTH refuses to start, naming it', async () => {
  const subgraph = startSubgraphProcess({ env: productionEnv({}) });
  running.push(subgraph);
  expect(await subgraph.exited).toBe(1);
  expect(subgraph.output()).toMatch(/CALLER_AUTH is required in production against the real hosts/);
  expect(subgraph.output()).not.toContain(DEMO_API_USER.password);
});

test('with CALLER_AUTH the start-up log names the proofs, and /graphql asks for them', async () => {
  const subgraph = startSubgraphProcess({ env: productionEnv({ CALLER_AUTH: 'router-secret', ROUTER_SECRET }) });
  running.push(subgraph);
  const url = await listeningUrl(subgraph);
  expect((await logLine(subgraph, 'subgraph listening')).callerAuth).toBe('router-secret');

  const refused = await postGraphQL(url, '{ __typename }');
  expect(refused.status).toBe(401);
  expect(refused.body.errors?.[0]?.message).toMatch(/missing the x-router-secret header/);
  const answered = await postGraphQL(url, '{ __typename }', { headers: { 'x-router-secret': ROUTER_SECRET } });
  expect(answered.status).toBe(200);
  expect(answered.body.data).toEqual({ __typename: 'Query' });
  expect(subgraph.output()).not.toContain(ROUTER_SECRET);
});
