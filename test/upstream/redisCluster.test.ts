/**
 * Two subgraph replicas (the real upstream composition, in process) sharing
 * their state through a 3-node Redis Cluster reached with REDIS_CLUSTER_NODES:
 * one sign-in, one dashboard call and one budget for both, Apollo's cache
 * shared, and no command refused (CROSSSLOT) on the way, because the key
 * prefix carries a hash tag.
 */
import { upstreamOptions } from '../support/upstreamOptions';
import { Cluster } from 'ioredis';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { loadConfig, type RedisConfig } from '../../src/config';
import { createApolloCache } from '../../src/redis/connection/apolloCache';
import { closeRedisClient, createRedisClient, waitUntilReady, type RedisClient } from '../../src/redis/connection/client';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { Secret } from '../../src/redaction/secret';
import { call, startTestEmulator } from '../support/emulator';
import { startRedisCluster, type RedisClusterSetup } from '../support/redisCluster';
import { describeWithRedis } from '../support/redisServer';
import { silentLogger } from '../support/subgraph';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { redisUpstreamStores } from '../../src/redis/upstream/redisUpstreamStores';

const PASSWORD = 'cluster-test-pass';

const QUERY: DashboardQueryBody = {
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: ['section'],
  metrics: ['pageViewsTotal', 'uniqueUsers'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
  limit: 5,
};

interface LoggedLine {
  level: string;
  msg: string;
}

describeWithRedis('shared state in a 3-node Redis Cluster', () => {
  let cluster: RedisClusterSetup;
  let emulator: RunningEmulator;
  let config: RedisConfig;
  const clients: RedisClient[] = [];
  const opened: Upstreams[] = [];
  const logged: LoggedLine[] = [];
  /** What SharedRedis says: a refused command (CROSSSLOT) or a lost connection is a warning. */
  const logger = {
    info: (_fields: object, msg: string) => {
      logged.push({ level: 'info', msg });
    },
    warn: (_fields: object, msg: string) => {
      logged.push({ level: 'warn', msg });
    },
  };

  beforeAll(async () => {
    [cluster, emulator] = await Promise.all([startRedisCluster({ password: PASSWORD }), startTestEmulator()]);
    config = loadConfig({ REDIS_CLUSTER_NODES: cluster.seeds, REDIS_PASSWORD: PASSWORD, REDIS_KEY_PREFIX: 'cluster-test:' }).redis!;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(opened.map((upstreams) => upstreams.close()));
    await Promise.all(clients.map((client) => closeRedisClient(client)));
    await Promise.all([cluster?.close(), emulator?.close()]);
  });

  async function replica(): Promise<{ upstreams: Upstreams; redis: SharedRedis }> {
    const client = createRedisClient(config);
    clients.push(client);
    const redis = new SharedRedis({ ...REDIS_STATE_DEFAULTS.sharedRedis, client, logger, retryAfterMs: 0, timeoutMs: 2_000 });
    expect(await waitUntilReady(client, 10_000)).toBe(true);
    const upstreams = createUpstreams(
      upstreamOptions({
        reportingBaseUrl: emulator.url,
        recommenderUrl: emulator.url,
        email: DEMO_API_USER.email,
        password: new Secret(DEMO_API_USER.password),
        timeoutMs: 5_000,
        logger: silentLogger,
        stores: redisUpstreamStores(redis),
      }),
    );
    opened.push(upstreams);
    return { upstreams, redis };
  }

  test('token, answers, budget and Apollo cache are shared, with every key in one slot and no command refused', async () => {
    const [one, two] = await Promise.all([replica(), replica()]);
    expect(one.redis.client).toBeInstanceOf(Cluster);

    const first = await one.upstreams.reporting.query(QUERY);
    const second = await two.upstreams.reporting.query(QUERY);
    expect(second.value).toEqual(first.value);
    const stats = (await call<{ signin: { count: number }; dashboard: { count: number } }>(emulator, '/__emulator/stats')).body;
    expect(stats).toMatchObject({ signin: { count: 1 }, dashboard: { count: 1 } });

    // Apollo's cache reads several keys at once (MGET): one slot, or CROSSSLOT.
    const [cacheOne, cacheTwo] = [
      createApolloCache(one.redis, REDIS_STATE_DEFAULTS.apolloCache),
      createApolloCache(two.redis, REDIS_STATE_DEFAULTS.apolloCache),
    ];
    await cacheOne.set('apq:a', 'query A');
    await cacheOne.set('apq:b', 'query B');
    await expect(cacheTwo.get('apq:a')).resolves.toBe('query A');

    const node = clients[0] as Cluster;
    const keys = (await Promise.all(node.nodes('master').map((master) => master.keys('*')))).flat();
    expect(keys).toEqual(expect.arrayContaining([expect.stringMatching(/^\{cluster-test:\}reporting:token$/)]));
    expect(keys.some((key) => key.startsWith('{cluster-test:}budget:'))).toBe(true);
    expect(keys.some((key) => key.startsWith('{cluster-test:}answer:'))).toBe(true);
    expect(new Set(keys.map((key) => key.slice(0, key.indexOf('}') + 1)))).toEqual(new Set(['{cluster-test:}']));

    expect([one.redis.mode(), two.redis.mode()]).toEqual(['shared', 'shared']);
    expect(logged.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
