/**
 * The process as deployed: when the vendor refuses the configured credentials,
 * /health/ready stays 200 (the process is healthy) and says that sign-in is
 * backing off, for how long and why; the password never appears.
 */
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { call, startTestEmulator } from '../support/emulator';
import { postGraphQL } from '../support/federationGateway';
import { startReplica, type Replica } from '../support/subgraphReplica';

const WRONG_PASSWORD = 'readiness-wrong-password-7f3a';

let emulator: RunningEmulator;
let subgraph: Replica;

beforeAll(async () => {
  emulator = await startTestEmulator({ scale: 0.02 });
  subgraph = await startReplica({
    REPORTING_BASE_URL: emulator.url,
    RECOMMENDER_URL: emulator.url,
    REPORTING_EMAIL: DEMO_API_USER.email,
    REPORTING_PASSWORD: WRONG_PASSWORD,
    SIGNIN_FAILURE_BACKOFF_SECONDS: '120',
  });
}, 60_000);

afterAll(async () => {
  await subgraph?.stop();
  await emulator?.close();
});

const DASHBOARD = `{ dashboard(query: { dates: { last: { number: 1, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }`;

test('refused credentials: operations fail at once with retryAfter, one sign-in, and readiness stays 200 showing the backoff', async () => {
  const first = await postGraphQL(subgraph.url, DASHBOARD);
  const second = await postGraphQL(subgraph.url, DASHBOARD);
  for (const result of [first, second]) {
    expect(result.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAUTHENTICATED');
    expect(result.errors?.[0].extensions?.retryAfter).toBeGreaterThan(100);
  }
  expect((await call<{ signin: { count: number } }>(emulator, '/__emulator/stats')).body.signin.count).toBe(1);

  const ready = await fetch(new URL('/health/ready', subgraph.url));
  expect(ready.status).toBe(200);
  const body = (await ready.json()) as { status: string; signIn: { state: string; reason: string; retryAfterSeconds: number } };
  expect(body.status).toBe('ready');
  expect(body.signIn).toMatchObject({ state: 'backing_off', reason: 'refused' });
  expect(body.signIn.retryAfterSeconds).toBeGreaterThan(100);
  expect(body.signIn.retryAfterSeconds).toBeLessThanOrEqual(120);
  expect(subgraph.output()).not.toContain(WRONG_PASSWORD);
});
