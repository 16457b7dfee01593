/**
 * A "replica's" connection to a test redis-server: its own client and
 * SharedRedis, prefixed keys, a short command timeout. Close with `quit`.
 */
import type { Redis } from 'ioredis';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from './redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { redisServerAvailable } from './redisAvailability';
import { startRedisServer, type RedisServer } from './redisServer';
import { REDIS_STATE_DEFAULTS } from '../../src/config';

export interface RedisReplica {
  client: Redis;
  redis: SharedRedis;
}

async function connectReplica(
  server: RedisServer,
  options: { prefix?: string; timeoutMs?: number; ready?: boolean } = {},
): Promise<RedisReplica> {
  const timeoutMs = options.timeoutMs ?? 200;
  const client = createRedisClient({ url: new Secret(server.url), keyPrefix: options.prefix ?? 'contract:', timeoutMs });
  const redis = new SharedRedis({
    ...REDIS_STATE_DEFAULTS.sharedRedis,
    client,
    logger: { info: () => {}, warn: () => {} },
    retryAfterMs: 0,
    timeoutMs,
  });
  if (options.ready !== false) await awaitReady(client);
  return { client, redis };
}

async function disconnect(replicas: readonly RedisReplica[]): Promise<void> {
  await Promise.all(replicas.map(({ client }) => closeRedisClient(client)));
}

export type StoreKind = 'memory' | 'redis' | 'redis down';

export interface ContractRedis {
  /** The cases this machine can run: all three with redis-server, only `memory` without. */
  kinds: StoreKind[];
  /**
   * A replica's connection for a case: to the running server for `redis`, to
   * the stopped one (its port refuses, so the store falls back) for `redis down`.
   * Closed after each test.
   */
  connect(kind: Exclude<StoreKind, 'memory'>, options?: { timeoutMs?: number }): Promise<RedisReplica>;
}

/**
 * The Redis side of a store contract suite: one running redis-server and one
 * stopped, each test's connections closed and the running one flushed after
 * it. Registers its own jest hooks; call it at the top of the test file.
 */
export function contractRedis(): ContractRedis {
  let up: RedisServer | undefined;
  let down: RedisServer | undefined;
  const replicas: RedisReplica[] = [];
  beforeAll(async () => {
    if (!redisServerAvailable()) return;
    [up, down] = await Promise.all([startRedisServer(), startRedisServer()]);
    await down.stop();
  });
  afterEach(async () => {
    await disconnect(replicas.splice(0));
    if (up === undefined) return;
    const cleaner = await connectReplica(up, { prefix: '' });
    await cleaner.client.flushall();
    await disconnect([cleaner]);
  });
  afterAll(async () => {
    await Promise.all([up?.close(), down?.close()]);
  });
  return {
    kinds: redisServerAvailable() ? ['memory', 'redis', 'redis down'] : ['memory'],
    async connect(kind, options = {}) {
      const server = kind === 'redis' ? up : down;
      if (server === undefined) throw new Error('no redis-server');
      const replica = await connectReplica(server, { ready: kind === 'redis', timeoutMs: options.timeoutMs ?? 100 });
      replicas.push(replica);
      return replica;
    },
  };
}
