/**
 * A response-cache entry that is not JSON (issue 22, defect 4), in a real
 * Redis shared by two replicas: it is a miss on every replica and is
 * replaced, never an INTERNAL_SERVER_ERROR until it expires.
 */
import { testConfig } from '../support/config';
import type { Redis } from 'ioredis';
import type { Served } from '../../src/upstream/datasources/fetched';
import type { RecommendationWire, RenderParams } from '../../src/upstream/datasources/wire';
import { createApolloCache } from '../../src/upstream/stores/redis/apolloCache';
import { createRedisClient, waitUntilReady } from '../../src/upstream/stores/redis/client';
import { SharedRedis } from '../../src/upstream/stores/redis/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { buildServer, type BuiltServer } from '../../src/web/server';
import { eventually } from '../support/redisHarness';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { fakeReporting, itemsFor, silentLogger, type FakeRecommender } from '../support/subgraph';

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

describeWithRedis('a response-cache entry that is not JSON', () => {
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
    await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
  });

  async function replica(): Promise<{ server: BuiltServer; recommender: FakeRecommender; client: Redis }> {
    const client = createRedisClient({ url: new Secret(redisServer.url), keyPrefix: '', timeoutMs: 500 });
    clients.push(client);
    await waitUntilReady(client, 5_000);
    const redis = new SharedRedis({ client, logger: silentLogger, retryAfterMs: 0, timeoutMs: 500 });
    const recommender = freshRecommender();
    const server = buildServer(testConfig({ renderMaxConcurrency: 4, cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60 } }), {
      recommender,
      reporting: fakeReporting(),
      logger: silentLogger,
      apolloCache: createApolloCache(redis),
    });
    servers.push(server);
    await server.start();
    return { server, recommender, client };
  }

  async function send(server: BuiltServer): Promise<{ data: unknown; errors: unknown }> {
    const response = await server.apollo.executeOperation(
      { query: RECOMMENDATIONS, variables: { experienceId: 'IL_shared' } },
      { contextValue: server.createContext() },
    );
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    return { data: response.body.singleResult.data, errors: response.body.singleResult.errors };
  }

  it.each([
    ['a stored response that is not JSON', (raw: string) => JSON.stringify({ ...JSON.parse(raw), value: '{"data": trunc' })],
    ['a stored value that is not JSON at all', () => '{"value": trunc'],
  ])('%s is a miss on every replica, and the next response replaces it', async (_name, poison) => {
    const [one, two] = await Promise.all([replica(), replica()]);
    await one.client.flushall();
    const first = await send(one.server);
    let keys: string[] = [];
    await eventually(async () => (keys = await one.client.keys('apollo:fqc:*')).length === 1);
    const poisoned = poison((await one.client.get(keys[0] ?? '')) ?? '{}');
    await one.client.set(keys[0] ?? '', poisoned, 'PX', 60_000);

    const answered = await send(two.server);

    expect(answered).toEqual({ data: first.data, errors: undefined });
    expect(two.recommender.calls).toHaveLength(1);
    await eventually(async () => {
      const stored = await one.client.get(keys[0] ?? '');
      return stored !== null && stored !== poisoned;
    });
  });
});
