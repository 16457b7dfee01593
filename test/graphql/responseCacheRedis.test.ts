/**
 * The response cache stores through Apollo's cache, in Redis when replicas
 * share it: a response stored by one replica answers the same operation on
 * another, under `apollo:fqc:` (the plugin's own prefix) for its max-age;
 * an entry that is not JSON is a miss, never an error.
 */
import type { Redis } from 'ioredis';
import type { Served } from '../../src/kernel/fetched';
import type { RecommendationWire, RenderParams } from '../../src/kernel/wire';
import { createApolloCache } from '../../src/redis/connection/apolloCache';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import type { BuiltServer } from '../../src/web/server';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { fakeReporting, itemsFor, silentLogger, type FakeRecommender } from '../support/subgraph';
import { testConfig } from '../support/config';
import { eventually } from '../support/redisHarness';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { buildTestServer } from '../support/services';

const RENDER_TTL = 60;
const RECOMMENDATIONS = `query Front($experienceId: ID!) {
  recommendations(experienceId: $experienceId, domain: "dailyglobe.example") { url title }
}`;

function freshRecommender(): FakeRecommender {
  const calls: RenderParams[] = [];
  return {
    calls,
    render: async (params): Promise<Served<RecommendationWire[]>> => {
      calls.push(params);
      return { value: itemsFor(params), fetchedAt: Date.now(), cache: 'miss' };
    },
  };
}

describeWithRedis('response cache in a shared Redis', () => {
  let redisServer: RedisServer;
  const clients: Redis[] = [];
  const servers: BuiltServer[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer({});
  });
  afterAll(async () => {
    await redisServer.close();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });

  async function replica(): Promise<{ server: BuiltServer; recommender: FakeRecommender; client: Redis }> {
    const client = createRedisClient({ url: new Secret(redisServer.url), keyPrefix: '', timeoutMs: 500 });
    clients.push(client);
    await awaitReady(client);
    const redis = new SharedRedis({ ...REDIS_STATE_DEFAULTS.sharedRedis, client, logger: silentLogger, retryAfterMs: 0, timeoutMs: 500 });
    const recommender = freshRecommender();
    const server = buildTestServer(
      testConfig({ production: false, renderMaxConcurrency: 4, cache: { renderTtlSeconds: RENDER_TTL, dashboardTtlSeconds: RENDER_TTL } }),
      {
        recommender,
        dashboard: fakeReporting(),
        logger: silentLogger,
        apolloCache: createApolloCache(redis, REDIS_STATE_DEFAULTS.apolloCache),
      },
    );
    servers.push(server);
    await server.start();
    return { server, recommender, client };
  }

  async function send(server: BuiltServer, experienceId: string): Promise<unknown> {
    const response = await server.apollo.executeOperation(
      { query: RECOMMENDATIONS, variables: { experienceId } },
      { contextValue: server.createContext() },
    );
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    expect(response.body.singleResult.errors).toBeUndefined();
    return response.body.singleResult.data;
  }

  it("answers one replica's repeated operation from what another stored", async () => {
    const [one, two] = await Promise.all([replica(), replica()]);
    await one.client.flushall();

    const first = await send(one.server, 'IL_shared');
    expect(one.recommender.calls).toHaveLength(1);

    // The plugin stores in the background: wait for the key rather than for a fixed time.
    let keys: string[] = [];
    for (let attempt = 0; keys.length === 0 && attempt < 500; attempt += 1) {
      keys = await one.client.keys('apollo:fqc:*');
      if (keys.length === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(keys).toHaveLength(1);
    const ttlMs = await one.client.pttl(keys[0] ?? '');
    expect(ttlMs).toBeGreaterThan(0);
    expect(ttlMs).toBeLessThanOrEqual(RENDER_TTL * 1000);

    expect(await send(two.server, 'IL_shared')).toEqual(first);
    expect(two.recommender.calls).toHaveLength(0);
  });

  // A response-cache entry that is not JSON (issue 22, defect 4): a miss on every replica, and replaced,
  // never an INTERNAL_SERVER_ERROR until it expires.
  it.each([
    ['a stored response that is not JSON', (raw: string) => JSON.stringify({ ...JSON.parse(raw), value: '{"data": trunc' })],
    ['a stored value that is not JSON at all', () => '{"value": trunc'],
  ])('%s is a miss on every replica, and the next response replaces it', async (_name, poison) => {
    const [one, two] = await Promise.all([replica(), replica()]);
    await one.client.flushall();
    const first = await send(one.server, 'IL_shared');
    let keys: string[] = [];
    await eventually(async () => (keys = await one.client.keys('apollo:fqc:*')).length === 1);
    const poisoned = poison((await one.client.get(keys[0] ?? '')) ?? '{}');
    await one.client.set(keys[0] ?? '', poisoned, 'PX', 60_000);

    expect(await send(two.server, 'IL_shared')).toEqual(first);
    expect(two.recommender.calls).toHaveLength(1);
    await eventually(async () => {
      const stored = await one.client.get(keys[0] ?? '');
      return stored !== null && stored !== poisoned;
    });
  });
});
