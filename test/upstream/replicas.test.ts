/**
 * Three subgraph processes, one emulator, one real redis-server: the replicas
 * share one reporting token, one answer cache and one upstream budget, and a
 * Redis outage costs no operation.
 */
import { createHash } from 'node:crypto';
import { RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { Secret } from '../../src/redaction/secret';
import { call, startTestEmulator } from '../support/emulator';
import { postGraphQL, type GraphQLResponse } from '../support/federationGateway';
import { eventually } from '../support/redisHarness';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { startReplicas, type Replica } from '../support/subgraphReplica';

/** The emulator's and the governor's reporting budget: one account, spent together by the three replicas. */
const REPORTING_PER_MINUTE = 150;
/** Operations of the burst: beyond what is left of the shared budget (the earlier tests spent some of it). */
const BURST = 250;
const FIFTEEN_DAYS_S = 15 * 24 * 3600;

const TOP = `query Top($from: Int) {
  dashboard(query: { dates: { last: { number: 7, unit: DAY } }, groupBy: [URL], metrics: [PAGE_VIEWS_TOTAL], limit: 3, from: $from }) { total fetchedAt }
}`;

interface Stats {
  signin: { count: number };
  dashboard: { count: number };
  render: { count: number };
}

type TopResult = GraphQLResponse<{ dashboard: { total: number; fetchedAt: string }[] | null }>;

describeWithRedis('three replicas sharing one Redis', () => {
  let emulator: RunningEmulator;
  let redis: RedisServer;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    [emulator, redis] = await Promise.all([
      startTestEmulator({ rates: { reportingPerMinute: REPORTING_PER_MINUTE } }),
      startRedisServer({ password: 'replica-redis-pass' }),
    ]);
    const env = {
      REPORTING_BASE_URL: emulator.url,
      RECOMMENDER_URL: emulator.url,
      REPORTING_EMAIL: DEMO_API_USER.email,
      REPORTING_PASSWORD: DEMO_API_USER.password,
      REPORTING_RATE_PER_MINUTE: String(REPORTING_PER_MINUTE),
      SIGNIN_RATE_PER_MINUTE: '20',
      RENDER_RATE_PER_MINUTE: '6000',
      UPSTREAM_QUEUE_TIMEOUT_MS: '500',
      // Refused at once rather than waiting for a later unit: these tests measure the governor's refusals (a
      // refused operation costs nothing upstream). On a loaded machine a burst outlasts the 20 s deadline, and
      // an ask refused at its deadline while its query is in flight would count twice. Waiting asks:
      // test/reporting/budgetQueue.dashboards.test.ts and dashboardMerge.http.test.ts.
      ANALYTICS_ASK_DEADLINE_MS: '0',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'replicas-test:',
      // Generous: on a loaded 2-core CI machine a busy event loop must not look like a slow Redis.
      REDIS_TIMEOUT_MS: '1000',
    };
    replicas = await startReplicas(3, env);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all([emulator?.close(), redis?.close()]);
  });

  const stats = async () => (await call<Stats>(emulator, '/__emulator/stats')).body;
  const resetStats = () => call(emulator, '/__emulator/stats', { method: 'DELETE' });
  /** Two emulator minutes: its rate buckets are full again, the token still valid. */
  const refillUpstreamBudget = () => call(emulator, '/__emulator/clock', { body: { advanceSeconds: 120 } });
  const expireTokens = () => call(emulator, '/__emulator/clock', { body: { advanceSeconds: FIFTEEN_DAYS_S } });
  /**
   * The replicas' shared reporting budget full again, as the emulator's is after its clock moved: the replicas'
   * clocks do not move, so what they spent in the last (real) minute still counts (as redisPausedBudget.test.ts's
   * `freeSlot`).
   */
  const refillSharedBudget = async () => {
    const admin = createRedisClient({ url: new Secret(redis.url), keyPrefix: '', timeoutMs: 1_000 });
    try {
      await awaitReady(admin);
      await admin.del(`replicas-test:budget:reporting:${DEMO_API_USER.email}`);
    } finally {
      admin.disconnect();
    }
  };
  /**
   * The shared reporting budget with only `slots` requests left (its GCRA "full at" instant written as the replicas'
   * script would): a burst is then refused by the shared bucket itself, and the emulator, in this process, never
   * gets the budget's whole minute of queries at once (on a loaded machine 150 at once outlasted the 10 s upstream timeout).
   */
  const leaveSharedSlots = async (slots: number) => {
    const admin = createRedisClient({ url: new Secret(redis.url), keyPrefix: '', timeoutMs: 1_000 });
    try {
      await awaitReady(admin);
      const fullAt = Date.now() + RATE_WINDOW_MS - (slots * RATE_WINDOW_MS) / REPORTING_PER_MINUTE;
      await admin.set(`replicas-test:budget:reporting:${DEMO_API_USER.email}`, fullAt.toFixed(3), 'PX', RATE_WINDOW_MS + 1_000);
    } finally {
      admin.disconnect();
    }
  };
  const top = (replica: Replica, from: number): Promise<TopResult> => postGraphQL(replica.url, TOP, { from });
  const health = async (replica: Replica) =>
    (await fetch(new URL('/health/ready', replica.url))).json() as Promise<{ status: string; redis?: string }>;
  /** `count` operations over the replicas in turn, all at once, each a different dashboard page from `firstPage`. */
  const spread = (count: number, firstPage: number) =>
    Promise.all(Array.from({ length: count }, (_, index) => top(replicas[index % 3], firstPage + index)));
  const failures = (results: TopResult[]) => results.filter((result) => result.errors !== undefined || !result.data?.dashboard);

  test('the first operations on three replicas make one sign-in', async () => {
    await resetStats();
    const results = await spread(6, 0);
    expect(failures(results)).toEqual([]);
    expect((await stats()).signin.count).toBe(1);
  });

  test('a dashboard answered by one replica is a cache hit on the other two', async () => {
    await resetStats();
    const first = await top(replicas[0], 1_000);
    const others = await Promise.all([top(replicas[1], 1_000), top(replicas[2], 1_000)]);
    expect((await stats()).dashboard.count).toBe(1);
    expect(others.map((result) => result.data)).toEqual([first.data, first.data]);
  });

  test('a persisted query registered on one replica is known to the others', async () => {
    const query = '{ __typename }';
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    const send = async (replica: Replica, body: Record<string, unknown>) => {
      const response = await fetch(replica.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
    };
    const unknown = await send(replicas[1], { extensions: { persistedQuery } });
    expect(unknown.errors?.map((error) => error.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    await expect(send(replicas[0], { query, extensions: { persistedQuery } })).resolves.toEqual({ data: { __typename: 'Query' } });
    // Apollo registers the query in the background after answering: the other replicas see it once Redis has it.
    let answer = await send(replicas[1], { extensions: { persistedQuery } });
    for (let attempt = 0; answer.errors !== undefined && attempt < 50; attempt += 1)
      answer = await send(replicas[1], { extensions: { persistedQuery } });
    expect(answer).toEqual({ data: { __typename: 'Query' } });
    await expect(send(replicas[2], { extensions: { persistedQuery } })).resolves.toEqual({ data: { __typename: 'Query' } });
  });

  test('after the token expires upstream, 60 concurrent operations over the replicas make exactly one sign-in and all succeed', async () => {
    await expireTokens();
    await resetStats();
    const results = await spread(60, 2_000);
    expect(failures(results)).toEqual([]);
    expect((await stats()).signin.count).toBe(1);
  });

  test('Redis stopped mid-run: no operation fails, readiness stays green and shows the degraded mode; restarted: sharing resumes', async () => {
    // Both budgets full: the earlier tests spent about 75 of the 150 within the last seconds, and the requests a
    // replica sends from its share while Redis is away are charged to the shared bucket when it is back.
    await refillUpstreamBudget();
    await refillSharedBudget();
    const before = await spread(6, 20_000);
    await redis.stop();
    const during = await spread(30, 20_000);
    expect(failures([...before, ...during])).toEqual([]);
    const healthDuring = await Promise.all(replicas.map(health));
    expect(healthDuring).toEqual(replicas.map(() => ({ status: 'ready', redis: 'degraded', signIn: { state: 'ok' } })));

    await redis.start();
    // Each replica goes back to Redis by itself once the connection is up again (its heartbeat, every 5 s): no
    // operation is needed, so none spends the budget while waiting (under load a reconnect can take many of them).
    for (const replica of replicas) await eventually(async () => (await health(replica)).redis === 'shared', 20_000);
    await resetStats();
    const first = await top(replicas[0], 40_000);
    await Promise.all([top(replicas[1], 40_000), top(replicas[2], 40_000)]);
    expect(failures([first])).toEqual([]);
    expect((await stats()).dashboard.count).toBe(1);

    await expireTokens();
    await refillSharedBudget();
    await resetStats();
    expect(failures(await spread(60, 50_000))).toEqual([]);
    expect((await stats()).signin.count).toBe(1);
    const logs = replicas.map((replica) => replica.output()).join('\n');
    expect(logs).toContain('Redis unavailable');
    expect(logs).toContain('Redis reachable again');
    expect(logs).not.toContain('replica-redis-pass');
    expect(logs).not.toContain(DEMO_API_USER.password);
  }, 60_000);

  test('a burst beyond the shared budget never reaches the upstream: no 429, the account budget is respected', async () => {
    await refillUpstreamBudget(); // the replicas' shared bucket is what limits now
    await leaveSharedSlots(5);
    await resetStats();
    const results = await spread(BURST, 10_000);
    const codes = results.flatMap((result) => (result.errors ?? []).map((error) => error.extensions));
    const spent = (await stats()).dashboard.count;
    // Refused here, before the upstream: UPSTREAM_RATE_LIMITED with retryAfter and no upstream status.
    expect(codes.length).toBeGreaterThan(0);
    const fromUpstream = (extensions: Record<string, unknown> | undefined) => {
      const upstream = extensions?.upstream;
      return typeof upstream === 'object' && upstream !== null && 'status' in upstream;
    };
    expect(codes.filter((extensions) => extensions?.code !== 'UPSTREAM_RATE_LIMITED' || fromUpstream(extensions))).toEqual([]);
    expect(spent).toBeLessThanOrEqual(REPORTING_PER_MINUTE);
    expect(spent + codes.length).toBe(BURST);
  });
});
