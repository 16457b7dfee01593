/**
 * Two subgraph processes reach Redis through Sentinel (REDIS_SENTINELS,
 * REDIS_SENTINEL_NAME, REDIS_PASSWORD). The primary is killed under traffic:
 * no operation fails (the replicas serve from local state meanwhile), and
 * once the sentinels promoted the replica the subgraph shares its state there
 * again: the token written before the crash is read from the promoted node,
 * and an answer fetched by one subgraph replica is a cache hit on the other.
 */
import { Redis } from 'ioredis';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { call, startTestEmulator } from '../support/emulator';
import { postGraphQL, type GraphQLResponse } from '../support/federationGateway';
import { describeWithSentinel, SENTINEL_GROUP, startSentinelSetup, waitFor, type SentinelSetup } from '../support/redisSentinel';
import { startReplicas, type Replica } from '../support/subgraphReplica';

const PASSWORD = 'sentinel-test-pass';
const PREFIX = 'sentinel-test:';
const RATE_PER_MINUTE = 600;
/** Few distinct pages: traffic is mostly cache hits, so it never runs out of upstream budget while Redis is away. */
const PAGES = 12;
/** Bounds on the traffic loop, whatever happens. */
// A bound on the traffic loop, not a target: cached pages answer in about a millisecond, so the
// bound must outlast a failover plus the recovery wait (3,000 ran out before the replicas shared again).
const MAX_OPERATIONS = 50_000;
const AFTER_RECOVERY_OPERATIONS = 40;

const TOP = `query Top($from: Int) {
  dashboard(query: { dates: { last: { number: 7, unit: DAY } }, groupBy: [URL], metrics: [PAGE_VIEWS_TOTAL], limit: 3, from: $from }) { total fetchedAt }
}`;

type TopResult = GraphQLResponse<{ dashboard: { total: number; fetchedAt: string }[] | null }>;

describeWithSentinel('Redis through Sentinel: the primary killed under traffic', () => {
  let emulator: RunningEmulator;
  let setup: SentinelSetup;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    [emulator, setup] = await Promise.all([
      startTestEmulator({ rates: { reportingPerMinute: RATE_PER_MINUTE } }),
      startSentinelSetup({ password: PASSWORD }),
    ]);
    const env = {
      REPORTING_BASE_URL: emulator.url,
      RECOMMENDER_URL: emulator.url,
      REPORTING_EMAIL: DEMO_API_USER.email,
      REPORTING_PASSWORD: DEMO_API_USER.password,
      REPORTING_RATE_PER_MINUTE: String(RATE_PER_MINUTE),
      UPSTREAM_QUEUE_TIMEOUT_MS: '2000',
      REDIS_SENTINELS: setup.sentinels,
      REDIS_SENTINEL_NAME: SENTINEL_GROUP,
      REDIS_PASSWORD: PASSWORD,
      REDIS_KEY_PREFIX: PREFIX,
      REDIS_TIMEOUT_MS: '1000',
    };
    replicas = await startReplicas(2, env);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all([emulator?.close(), setup?.close()]);
  });

  const stats = async () => (await call<{ signin: { count: number }; dashboard: { count: number } }>(emulator, '/__emulator/stats')).body;
  const resetStats = () => call(emulator, '/__emulator/stats', { method: 'DELETE' });
  const top = (replica: Replica, from: number): Promise<TopResult> => postGraphQL(replica.url, TOP, { from });
  const redisMode = async (replica: Replica) =>
    ((await (await fetch(new URL('/health/ready', replica.url))).json()) as { redis?: string }).redis;
  const failed = (result: TopResult) => result.errors !== undefined || !result.data?.dashboard;

  test('0 failed operations, and the token and the answers are shared through the promoted replica', async () => {
    // Before: one sign-in and one dashboard call for both subgraph replicas, through the sentinels' primary.
    expect(failed(await top(replicas[0], 0))).toBe(false);
    expect(failed(await top(replicas[1], 0))).toBe(false);
    expect(await stats()).toMatchObject({ signin: { count: 1 }, dashboard: { count: 1 } });
    const oldPrimary = await setup.primaryPort();
    expect(oldPrimary).toBe(setup.primary.port);

    const results: TopResult[] = [];
    let stop = false;
    const worker = async (replica: Replica, offset: number) => {
      for (let index = offset; !stop && results.length < MAX_OPERATIONS; index += 1) results.push(await top(replica, index % PAGES));
    };
    const traffic = Promise.all([worker(replicas[0], 0), worker(replicas[0], 5), worker(replicas[1], 3), worker(replicas[1], 7)]);
    try {
      await waitFor(async () => results.length >= 20, 'traffic before the crash');
      await setup.primary.kill();
      const promoted = await setup.waitForFailover(oldPrimary);
      expect(promoted).toBe(setup.replica.port);
      await waitFor(
        async () => (await Promise.all(replicas.map(redisMode))).every((mode) => mode === 'shared'),
        'both subgraph replicas sharing state again',
        30_000,
      );
      const recovered = results.length;
      await waitFor(async () => results.length >= recovered + AFTER_RECOVERY_OPERATIONS, 'traffic after the failover');
    } finally {
      stop = true;
      await traffic;
    }
    expect(results.filter(failed)).toEqual([]);

    // After: the token written before the crash is on the promoted node, and answers are shared there.
    const promotedNode = new Redis({ host: '127.0.0.1', port: setup.replica.port, password: PASSWORD, lazyConnect: true });
    try {
      expect(await promotedNode.exists(`${PREFIX}reporting:token`)).toBe(1);
      await resetStats();
      expect(failed(await top(replicas[0], 5_000))).toBe(false);
      expect(failed(await top(replicas[1], 5_000))).toBe(false);
      expect(await stats()).toMatchObject({ signin: { count: 0 }, dashboard: { count: 1 } });
      expect((await promotedNode.keys(`${PREFIX}*`)).length).toBeGreaterThan(1);
    } finally {
      promotedNode.disconnect();
    }
    const logs = replicas.map((replica) => replica.output()).join('\n');
    expect(logs).not.toContain(PASSWORD);
  }, 90_000);
});
