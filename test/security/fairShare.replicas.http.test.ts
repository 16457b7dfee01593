/**
 * The fair share counted for the cluster, over real HTTP (issue 28 item 4):
 * two subgraph processes (`src/index.ts`, as `npm start` runs them) on one
 * real redis-server, against a real emulator, behind the router secret (its
 * client names trusted: CALLER_NAME_HEADER_TRUSTED). A
 * caller that spent its share through replica A is refused at once on
 * replica B, with UPSTREAM_RATE_LIMITED, retryAfter and 0 upstream calls (the
 * emulator's counts); another caller is answered on B.
 */
import type { Redis } from 'ioredis';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { Secret } from '../../src/redaction/secret';
import { createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { eventually } from '../support/redisHarness';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { readStats, startSmallEmulator } from '../support/subgraphHttp';
import { startReplicas, type Replica } from '../support/subgraphReplica';
import { postGraphQL, ROUTER_SECRET, type GraphQLAnswer } from './support';

jest.setTimeout(90_000);

/** 0.005 of 600 slots a minute over 60 s: 3 slots per caller a minute. */
const SLOTS_PER_CALLER = 3;
const WINDOW_SECONDS = 60;

describeWithRedis('the fair share behind two replicas on one Redis', () => {
  let emulator: RunningEmulator;
  let server: RedisServer;
  let replicas: Replica[] = [];
  let admin: Redis;

  beforeAll(async () => {
    [emulator, server] = await Promise.all([startSmallEmulator(), startRedisServer()]);
    const env = {
      REPORTING_BASE_URL: emulator.url,
      RECOMMENDER_URL: emulator.url,
      REPORTING_EMAIL: DEMO_API_USER.email,
      REPORTING_PASSWORD: DEMO_API_USER.password,
      REPORTING_RATE_PER_MINUTE: '600',
      DASHBOARD_SHARE_PER_CALLER: '0.005',
      DASHBOARD_SHARE_WINDOW_SECONDS: String(WINDOW_SECONDS),
      CALLER_AUTH: 'router-secret',
      ROUTER_SECRET,
      // The router sets the client name from what it verified: the name is each caller's identity here.
      CALLER_NAME_HEADER_TRUSTED: 'true',
      REDIS_URL: server.url,
    };
    replicas = await startReplicas(2, env);
    admin = createRedisClient({ url: new Secret(server.url), keyPrefix: '', timeoutMs: 2_000 });
    await awaitReady(admin);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await admin?.quit();
    await Promise.all([emulator?.close(), server?.close()]);
  });

  async function dashboardQueries(): Promise<number> {
    return (await readStats(emulator)).dashboard.count;
  }

  /** A distinct dashboard per `days` (no two share an answer or a query). */
  function askDashboard(replica: Replica, client: string, days: number): Promise<GraphQLAnswer> {
    return postGraphQL(
      replica.url,
      `{ dashboard(query: { dates: { last: { number: ${days}, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }`,
      { headers: { 'x-router-secret': ROUTER_SECRET, 'apollographql-client-name': client } },
    );
  }

  test('a caller that spent its share through replica A is refused at once on replica B, with retryAfter and 0 upstream calls', async () => {
    const [a, b] = replicas;
    for (let days = 1; days <= SLOTS_PER_CALLER; days += 1) {
      const answered = await askDashboard(a, 'greedy-dashboards', days);
      expect(answered.body.errors).toBeUndefined();
    }
    const before = await dashboardQueries();

    // A writes each slot to Redis in the background, right after its answer: B asks once all three are there.
    await eventually(async () => (await admin.zcard('analytics-subgraph:reporting:callers:greedy-dashboards')) === SLOTS_PER_CALLER);
    const started = Date.now();
    const refused = await askDashboard(b, 'greedy-dashboards', SLOTS_PER_CALLER + 1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    const retryAfter = refused.body.errors?.[0].extensions?.retryAfter as number;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(await dashboardQueries()).toBe(before);

    const again = await askDashboard(b, 'greedy-dashboards', 30);
    expect(again.body.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    expect(await askDashboard(a, 'greedy-dashboards', 31)).toMatchObject({
      body: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'UPSTREAM_RATE_LIMITED' }) })] },
    });
    expect(await dashboardQueries()).toBe(before);

    const editor = await askDashboard(b, 'newsroom-editor', 40);
    expect(editor.body.errors).toBeUndefined();
    expect(editor.body.data?.dashboard).toEqual([expect.objectContaining({ metric: 'PAGE_VIEWS_TOTAL' })]);
    expect(await dashboardQueries()).toBe(before + 1);
  });
});
