import { Redis } from 'ioredis';
import type { RedisConfig } from '../../../config';

/** Reconnection never stops: Redis coming back must bring the replicas back to shared state by itself. */
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * One ioredis connection per process for all shared state. Commands never
 * queue while Redis is away (`enableOfflineQueue: false`) and never wait
 * longer than the configured timeout: a missing or slow Redis must cost an
 * operation at most that timeout before the local fallback answers.
 */
export function createRedisClient(config: RedisConfig): Redis {
  return new Redis(config.url.reveal(), {
    keyPrefix: config.keyPrefix,
    // A backstop only: SharedRedis applies REDIS_TIMEOUT_MS itself (see withinTimeout); this frees commands a dead socket would hold.
    commandTimeout: Math.max(10_000, config.timeoutMs * 10),
    connectTimeout: Math.max(1_000, config.timeoutMs * 4),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 6), MAX_RECONNECT_DELAY_MS),
  });
}

/** Resolves when the client is ready or `withinMs` passed, whichever comes first: start-up never waits on a missing Redis. */
export function waitUntilReady(client: Redis, withinMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), withinMs);
    client.once('ready', onReady);
  });
}
