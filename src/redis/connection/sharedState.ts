import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { REDIS_STATE_DEFAULTS, type RedisConfig } from '../../config';
import { createApolloCache } from './apolloCache';
import { closeRedisClient, createRedisClient, waitUntilReady } from './client';
import { SharedRedis, type RedisLogger } from './sharedRedis';

/** Start-up waits this long for Redis at most; after that the replica starts degraded and joins when Redis answers. */
const STARTUP_WAIT_MS = 2_000;

export interface SharedState {
  redis: SharedRedis;
  apolloCache: KeyValueCache<string>;
  /** Closes the connection (closeRedisClient). */
  close(): Promise<void>;
}

/** Connects to REDIS_URL; never fails start-up: a replica without Redis serves from its own state. */
export async function connectSharedState(
  config: RedisConfig,
  logger: RedisLogger,
  onRefused?: (reason: string) => void,
): Promise<SharedState> {
  const client = createRedisClient(config);
  // Built before waiting, so connection errors already have their (rate-limited) listener.
  const redis = new SharedRedis({
    client,
    logger,
    timeoutMs: config.timeoutMs,
    ...REDIS_STATE_DEFAULTS.sharedRedis,
    ...(onRefused === undefined ? {} : { onRefused }),
  });
  const ready = await waitUntilReady(client, STARTUP_WAIT_MS);
  // After the wait: a first heartbeat before the connection is up would count as an outage.
  redis.roster.start();
  if (ready) logger.info({ redis: 'shared', keyPrefix: config.keyPrefix }, 'Redis connected: token, answer cache and budget are shared');
  return {
    redis,
    apolloCache: createApolloCache(redis, REDIS_STATE_DEFAULTS.apolloCache),
    async close() {
      redis.roster.stop();
      await closeRedisClient(client);
    },
  };
}
