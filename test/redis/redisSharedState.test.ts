/**
 * The shared stores against a real redis-server: token single-flight across
 * "replicas" (separate connections and providers), the answer cache, Apollo's
 * cache, and the fallback when Redis is down, slow or flushed.
 */
import type { Redis } from 'ioredis';
import { SharedTokenProvider, TOKEN_KEY } from '../../src/redis/upstream/sharedTokenProvider';
import type { Fetched } from '../../src/kernel/fetched';
import { createApolloCache } from '../../src/redis/connection/apolloCache';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { RedisAnswerStore } from '../../src/redis/upstream/redisAnswerStore';
import { RedisRateStore } from '../../src/redis/upstream/redisRateStore';
import { RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import type { AnswerStore } from '../../src/upstream/stores/answerStore';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const PASSWORD = 'redis-test-pass';

/** A plain Map store, enough to see which store answered. */
function mapStore(): AnswerStore & { entries: Map<string, Fetched<unknown>> } {
  const entries = new Map<string, Fetched<unknown>>();
  return {
    entries,
    get: async (key) => entries.get(key),
    claim: async () => ({ kind: 'unclaimed' }),
    set: async (key, entry) => {
      entries.set(key, entry);
    },
    fail: async () => {},
  };
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  return {
    lines,
    info: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'info', fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', fields, msg }),
  };
}

describeWithRedis('shared state in a real Redis', () => {
  let server: RedisServer;
  const clients: Redis[] = [];

  beforeAll(async () => {
    server = await startRedisServer({ password: PASSWORD });
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });

  /** A replica's connection: prefixed keys, a timeout a loaded 2-core CI machine still meets (tests of slowness pass their own). */
  async function replica(options: { prefix?: string; timeoutMs?: number } = {}) {
    const client = createRedisClient({
      url: new Secret(server.url),
      keyPrefix: options.prefix ?? 'test:',
      timeoutMs: options.timeoutMs ?? 1_000,
    });
    clients.push(client);
    const logger = recordingLogger();
    const redis = new SharedRedis({
      ...REDIS_STATE_DEFAULTS.sharedRedis,
      client,
      logger,
      retryAfterMs: 0,
      timeoutMs: options.timeoutMs ?? 1_000,
    });
    await awaitReady(client);
    return { client, logger, redis };
  }

  beforeEach(async () => {
    const { client } = await replica({ prefix: '' });
    await client.flushall();
  });

  describe('the reporting token', () => {
    function provider(redis: SharedRedis, signIn: () => Promise<string>) {
      return new SharedTokenProvider({
        ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
        signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
        signIn,
        redis,
        lockMs: 2_000,
        pollMs: 5,
      });
    }

    test('concurrent demands on three replicas make one sign-in; the token, never the password, sits in Redis', async () => {
      let signIns = 0;
      const signIn = async () => {
        signIns += 1;
        await new Promise((resolve) => setImmediate(resolve));
        return `token-${signIns}`;
      };
      const replicas = await Promise.all([replica(), replica(), replica()]);
      const providers = replicas.map(({ redis }) => provider(redis, signIn));

      const tokens = await Promise.all(Array.from({ length: 30 }, (_, index) => providers[index % 3].getToken()));

      expect(signIns).toBe(1);
      expect(new Set(tokens)).toEqual(new Set(['token-1']));
      const stored = await replicas[0].client.get(TOKEN_KEY);
      expect(JSON.parse(stored ?? '{}')).toMatchObject({ token: 'token-1' });
      const keys = await replicas[0].client.keys('*');
      const values = await Promise.all(keys.map((key) => replicas[0].client.get(key.replace(/^test:/, ''))));
      expect(values.join('\n')).not.toContain(PASSWORD);
    });

    test('a token refused on every replica is renewed once, cluster-wide', async () => {
      let signIns = 0;
      const signIn = async () => `token-${++signIns}`;
      const providers = (await Promise.all([replica(), replica(), replica()])).map(({ redis }) => provider(redis, signIn));
      const first = await providers[0].getToken();
      await Promise.all(providers.map((p) => p.getToken()));

      const renewed = await Promise.all(Array.from({ length: 30 }, (_, index) => providers[index % 3].renew(first)));

      expect(signIns).toBe(2);
      expect(new Set(renewed)).toEqual(new Set(['token-2']));
    });

    test('without Redis, a replica signs in for itself and shares again once Redis is back', async () => {
      let signIns = 0;
      const signIn = async () => `token-${++signIns}`;
      const { redis, client, logger } = await replica();
      const tokens = provider(redis, signIn);
      await server.stop();
      try {
        await expect(tokens.getToken()).resolves.toBe('token-1');
        expect(redis.mode()).toBe('degraded');
      } finally {
        await server.start();
      }
      await awaitReady(client);
      const other = provider((await replica()).redis, signIn);
      await expect(tokens.renew('token-1')).resolves.toBe('token-2');
      await expect(other.getToken()).resolves.toBe('token-2');
      expect(signIns).toBe(2);
      expect(logger.lines.map((line) => [line.level, line.fields.redis])).toEqual([
        ['warn', 'degraded'],
        ['info', 'shared'],
      ]);
    });
  });

  describe('the answer cache', () => {
    const entry: Fetched<unknown> = { value: [{ metric: 'pageViewsTotal', total: 3 }], fetchedAt: 1_763_640_000_000 };

    test('an answer stored by one replica is read by another, under the prefix, for keepMs', async () => {
      const [one, two] = await Promise.all([replica(), replica()]);
      const oneStore = new RedisAnswerStore(one.redis, mapStore(), { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 0 });
      const twoLocal = mapStore();
      const twoStore = new RedisAnswerStore(two.redis, twoLocal, { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 0 });

      await oneStore.set('dashboard:acct:{"q":1}', entry, 60_000);

      await expect(twoStore.get('dashboard:acct:{"q":1}')).resolves.toEqual(entry);
      await expect(twoStore.get('dashboard:acct:{"q":2}')).resolves.toBeUndefined();
      expect(twoLocal.entries.size).toBe(0);
      expect(await one.client.pttl('answer:dashboard:acct:{"q":1}')).toBeGreaterThan(59_000);
      const raw = await replica({ prefix: '' });
      expect(await raw.client.exists('test:answer:dashboard:acct:{"q":1}')).toBe(1);
    });

    test('a miss while another replica fetches the same answer waits for that answer instead of fetching too', async () => {
      const [one, two, three] = await Promise.all([replica(), replica(), replica()]);
      const fetching = new RedisAnswerStore(one.redis, mapStore(), { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 5_000, pollMs: 5 });
      const waiting = new RedisAnswerStore(two.redis, mapStore(), { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 5_000, pollMs: 5 });
      const other = new RedisAnswerStore(three.redis, mapStore(), { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 5_000, pollMs: 5 });

      await expect(fetching.claim('k')).resolves.toEqual({ kind: 'claimed' }); // this replica fetches
      const waited = waiting.claim('k');
      await expect(other.claim('other-key')).resolves.toEqual({ kind: 'claimed' }); // a different key is not held up
      await fetching.set('k', entry, 60_000);

      await expect(waited).resolves.toEqual({ kind: 'filled', entry });
      expect(await one.client.exists('filling:k')).toBe(0);
    });

    test('down, slow or flushed Redis: the local store answers, nothing rejects', async () => {
      const { redis, client } = await replica({ timeoutMs: 50 });
      const local = mapStore();
      const store = new RedisAnswerStore(redis, local, { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 0 });

      await client.call('CLIENT', 'PAUSE', '500', 'ALL');
      await expect(store.set('k', entry, 60_000)).resolves.toBeUndefined();
      expect(local.entries.get('k')).toEqual(entry);
      await expect(store.get('k')).resolves.toEqual(entry);
      expect(redis.mode()).toBe('degraded');
    });

    test('a flushed Redis is a miss, and the store is shared again at once', async () => {
      const { redis, client } = await replica();
      const store = new RedisAnswerStore(redis, mapStore(), { ...REDIS_STATE_DEFAULTS.answerFill, fillWaitMs: 0 });
      await store.set('k', entry, 60_000);
      await client.flushall();
      await expect(store.get('k')).resolves.toBeUndefined();
      await store.set('k', entry, 60_000);
      await expect(store.get('k')).resolves.toEqual(entry);
      expect(redis.mode()).toBe('shared');
    });
  });

  describe('the upstream budget', () => {
    const T0 = 1_763_640_000_000;

    test('three replicas reserving at once spend one budget: a burst of perMinute, then one per interval', async () => {
      const stores = (await Promise.all([replica(), replica(), replica()])).map(({ redis }) => new RedisRateStore(redis));

      const burst = await Promise.all(Array.from({ length: 30 }, (_, index) => stores[index % 3].reserve('reporting:acct', 10, T0, 0)));

      const interval = RATE_WINDOW_MS / 10;
      expect(burst.filter((reservation) => reservation.granted)).toHaveLength(10);
      expect(burst.filter((reservation) => !reservation.granted)).toEqual(
        Array.from({ length: 20 }, () => ({ granted: false, retryAfterMs: interval })),
      );
      await expect(stores[1].reserve('reporting:acct', 10, T0, interval)).resolves.toEqual({ granted: true, waitMs: interval });
      await expect(stores[2].reserve('reporting:acct', 10, T0 + 2 * interval, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
      await expect(stores[0].reserve('reporting:other', 10, T0, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
    });

    // Answering exactly as the in-process bucket does (pause included) is the RateStore contract: rateStoreContract.test.ts.

    test('without Redis, each replica spends from its own bucket', async () => {
      const { redis } = await replica();
      const store = new RedisRateStore(redis);
      await server.stop();
      try {
        const reservations = await Promise.all(Array.from({ length: 4 }, () => store.reserve('k', 2, T0, 0)));
        expect(reservations.map((reservation) => reservation.granted)).toEqual([true, true, false, false]);
      } finally {
        await server.start();
      }
    });
  });

  describe("Apollo Server's cache", () => {
    test('a value set through one replica is read through another; with Redis away it stays in process', async () => {
      const [one, two] = await Promise.all([replica(), replica()]);
      const cacheOne = createApolloCache(one.redis, REDIS_STATE_DEFAULTS.apolloCache);
      const cacheTwo = createApolloCache(two.redis, REDIS_STATE_DEFAULTS.apolloCache);
      await cacheOne.set('apq:abc', 'query { x }', { ttl: 60 });
      await expect(cacheTwo.get('apq:abc')).resolves.toBe('query { x }');
      expect(await one.client.pttl('apollo:apq:abc')).toBeGreaterThan(59_000);

      await server.stop();
      try {
        await expect(cacheTwo.get('apq:abc')).resolves.toBeUndefined();
        await cacheTwo.set('apq:def', 'query { y }');
        await expect(cacheTwo.get('apq:def')).resolves.toBe('query { y }');
      } finally {
        await server.start();
      }
    });
  });
});
