/**
 * A "replica's" connection to a test redis-server: its own client and
 * SharedRedis, prefixed keys, a short command timeout. Close with `quit`.
 */
import type { Redis } from 'ioredis';
import { createRedisClient, waitUntilReady } from '../../src/redis/client';
import { SharedRedis } from '../../src/redis/sharedRedis';
import { Secret } from '../../src/secret';
import type { RedisServer } from './redisServer';

export interface RedisReplica {
  client: Redis;
  redis: SharedRedis;
}

export async function connectReplica(
  server: RedisServer,
  options: { prefix?: string; timeoutMs?: number; ready?: boolean } = {},
): Promise<RedisReplica> {
  const timeoutMs = options.timeoutMs ?? 200;
  const client = createRedisClient({ url: new Secret(server.url), keyPrefix: options.prefix ?? 'contract:', timeoutMs });
  const redis = new SharedRedis({ client, logger: { info: () => {}, warn: () => {} }, retryAfterMs: 0, timeoutMs });
  if (options.ready !== false) await waitUntilReady(client, 5_000);
  return { client, redis };
}

export async function disconnect(replicas: readonly RedisReplica[]): Promise<void> {
  await Promise.all(replicas.map(({ client }) => client.quit().catch(() => client.disconnect())));
}
