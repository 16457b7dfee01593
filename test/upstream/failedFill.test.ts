/**
 * Fills across replicas. Issue 15 defect: a failed fill on one replica must
 * release the replicas waiting for that answer at once, not after the fill
 * claim lapses; a successful one serves them its answer.
 * Two replicas (two stores, two connections) on one real redis-server; the
 * clock never moves, so only the release itself can end the wait.
 */
import { recordEvents } from '../support/upstreamEvents';
import type { Redis } from 'ioredis';
import type { Fetched } from '../../src/kernel/fetched';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { RedisAnswerStore } from '../../src/redis/upstream/redisAnswerStore';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { createBreaker } from '../../src/upstream/stages/breaker';
import { protectEndpoint } from '../../src/upstream/pipeline';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { deferred } from '../support/deferred';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const WHERE = { service: 'recommender', endpoint: '/recommenderexperience/render.json' } as const;
const NOW = Date.UTC(2026, 10, 23, 12);

describeWithRedis('a failed fill across replicas', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => closeRedisClient(client)));
    await server.close();
  });

  async function replica(fetch: (input: string) => Promise<Fetched<string[]>>, onWait: (key: string) => void = () => {}) {
    const client = createRedisClient({ url: new Secret(server.url), keyPrefix: 'fill:', timeoutMs: 1_000 });
    clients.push(client);
    const redis = new SharedRedis({
      ...REDIS_STATE_DEFAULTS.sharedRedis,
      client,
      logger: { info: () => {}, warn: () => {} },
      retryAfterMs: 0,
      timeoutMs: 1_000,
    });
    await awaitReady(client);
    // The claim would last a minute: only its release can end the other replica's wait.
    const store = new RedisAnswerStore(redis, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: 60_000,
      pollMs: 5,
      now: () => NOW,
      onWait,
    });
    return protectEndpoint<string, string[]>({
      ...WHERE,
      keyOf: (input) => `key:${input}`,
      policyOf: () => ({ ttlMs: 60_000, staleIfErrorMs: 600_000 }),
      isAnswer: (value): value is string[] => Array.isArray(value),
      store,
      breaker: createBreaker({ ...WHERE, cooldownMs: 10_000, failureThreshold: 1_000, now: () => NOW, observer: recordEvents() }),
      request: fetch,
      now: () => NOW,
      observer: recordEvents(),
    });
  }

  test("replica 2 fetches for itself as soon as replica 1's fetch fails, instead of waiting for the claim to lapse", async () => {
    const oneStarted = deferred<void>();
    const oneFails = deferred<void>();
    const twoWaits = deferred<void>();
    const twoCalls: string[] = [];
    const one = await replica(async () => {
      oneStarted.resolve();
      await oneFails.promise;
      throw new UpstreamError({ ...WHERE, kind: 'http', status: 503 });
    });
    const two = await replica(
      async (input) => {
        twoCalls.push(input);
        return { value: [`${input} from two`], fetchedAt: NOW };
      },
      () => twoWaits.resolve(),
    );

    const first = one('a').catch((error: unknown) => error);
    await oneStarted.promise; // replica 1 holds the claim and is fetching
    const second = two('a');
    await twoWaits.promise; // replica 2 waits on replica 1's claim
    oneFails.resolve();

    expect(await first).toMatchObject({ kind: 'http', status: 503 });
    await expect(second).resolves.toEqual({ value: ['a from two'], fetchedAt: NOW, cache: 'miss' });
    expect(twoCalls).toEqual(['a']);
  });

  test("replica 2 waiting on replica 1's claim is served replica 1's answer, as coalesced, without a call", async () => {
    const oneStarted = deferred<void>();
    const oneAnswers = deferred<void>();
    const twoWaits = deferred<void>();
    const twoCalls: string[] = [];
    const one = await replica(async (input) => {
      oneStarted.resolve();
      await oneAnswers.promise;
      return { value: [`${input} from one`], fetchedAt: NOW };
    });
    const two = await replica(
      async (input) => {
        twoCalls.push(input);
        return { value: [`${input} from two`], fetchedAt: NOW };
      },
      () => twoWaits.resolve(),
    );

    const first = one('b');
    await oneStarted.promise;
    const second = two('b');
    await twoWaits.promise;
    oneAnswers.resolve();

    await expect(first).resolves.toEqual({ value: ['b from one'], fetchedAt: NOW, cache: 'miss' });
    await expect(second).resolves.toEqual({ value: ['b from one'], fetchedAt: NOW, cache: 'coalesced' });
    expect(twoCalls).toEqual([]);
  });
});
