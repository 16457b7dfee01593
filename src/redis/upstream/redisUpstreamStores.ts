import { REDIS_STATE_DEFAULTS } from '../../config/redis';
import type { UpstreamStores } from '../../upstream/stores/upstreamStores';
import type { SharedRedis } from '../connection/sharedRedis';
import { RedisAnswerStore } from './redisAnswerStore';
import { RedisRateStore } from './redisRateStore';
import { RedisTokenExchange, longestBackoffMs } from './redisTokenExchange';

/**
 * The call path's stores shared by every replica through one Redis: the
 * answer cache with fill claims (this process's memory while Redis is away),
 * the governor's buckets (each replica's share while Redis is away), and the
 * token, signed in by one replica under a cluster-wide lock.
 */
export function redisUpstreamStores(redis: SharedRedis): UpstreamStores {
  return {
    answers: ({ local, fillWaitMs, now }) =>
      new RedisAnswerStore(redis, local, { fillWaitMs, ...REDIS_STATE_DEFAULTS.answerFill, ...(now === undefined ? {} : { now }) }),
    rates: (now) => new RedisRateStore(redis, now),
    tokenExchange: ({ lockMs, signInBackoff, now }) =>
      new RedisTokenExchange({ redis, lockMs, ...REDIS_STATE_DEFAULTS.tokenExchange, maxBackoffMs: longestBackoffMs(signInBackoff), now }),
  };
}
