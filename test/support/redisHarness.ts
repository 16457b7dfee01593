/**
 * One real redis-server for a suite, and "replicas" on it: each its own
 * connection and SharedRedis (prefixed keys, a clock the test may move, a
 * recording logger), closed after each test, the server flushed before each.
 * Registers its own jest hooks; call it at the top of a `describeWithRedis`.
 */
import type { Redis } from 'ioredis';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from './redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { startRedisServer, type RedisServer } from './redisServer';
import { REDIS_STATE_DEFAULTS } from '../../src/config';

export interface LogLine {
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  msg: string;
}

export interface HarnessReplica {
  client: Redis;
  redis: SharedRedis;
  logs: LogLine[];
  refusals: string[];
}

export interface ReplicaOptions {
  prefix?: string;
  timeoutMs?: number;
  retryAfterMs?: number;
  now?: () => number;
}

export interface RedisHarness {
  server(): RedisServer;
  /** A connection with no prefix, for the test's own look at the keys. */
  admin(): Promise<Redis>;
  replica(options?: ReplicaOptions): Promise<HarnessReplica>;
}

export function redisHarness(): RedisHarness {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  const running = () => {
    if (server === undefined) throw new Error('no redis-server');
    return server;
  };
  const replica = async (options: ReplicaOptions = {}): Promise<HarnessReplica> => {
    const timeoutMs = options.timeoutMs ?? 1_000;
    const client = createRedisClient({ url: new Secret(running().url), keyPrefix: options.prefix ?? 'test:', timeoutMs });
    clients.push(client);
    const logs: LogLine[] = [];
    const refusals: string[] = [];
    const redis = new SharedRedis({
      ...REDIS_STATE_DEFAULTS.sharedRedis,
      client,
      logger: {
        info: (fields, msg) => logs.push({ level: 'info', fields, msg }),
        warn: (fields, msg) => logs.push({ level: 'warn', fields, msg }),
      },
      timeoutMs,
      retryAfterMs: options.retryAfterMs ?? 0,
      onRefused: (reason) => refusals.push(reason),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    await awaitReady(client);
    return { client, redis, logs, refusals };
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  beforeEach(async () => {
    const { client } = await replica({ prefix: '' });
    await client.call('CLIENT', 'UNPAUSE');
    await client.config('SET', 'maxmemory', '0');
    await client.flushall();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    server: running,
    admin: async () => (await replica({ prefix: '' })).client,
    replica,
  };
}

/** Polls `condition` until it holds (an event with no hook of its own), failing after `withinMs`. */
export async function eventually(condition: () => Promise<boolean>, withinMs = 5_000): Promise<void> {
  const giveUpAt = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
