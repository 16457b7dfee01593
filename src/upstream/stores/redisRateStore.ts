import { RATE_WINDOW_MS, type RateStore, type Reservation } from './rateStore';
import type { SharedRedis } from './redis/sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX. */
const BUDGET_KEY_PREFIX = 'budget:';

/**
 * The same GCRA token bucket as MemoryRateStore (one number per bucket: the
 * instant it is full again), as one atomic script per method so replicas
 * reserving at once never both take the last request. Numbers travel as
 * strings: Redis truncates Lua numbers it returns to integers. The key
 * expires when the bucket would be full anyway, so idle buckets cost nothing.
 */
const RESERVE = `
local interval = tonumber(ARGV[4]) / tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local fullAt = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if fullAt < now then fullAt = now end
local nextAt = fullAt + interval
local wait = nextAt - tonumber(ARGV[1]) * interval - now
if wait < 0 then wait = 0 end
if wait > tonumber(ARGV[3]) then return {0, string.format('%.3f', wait)} end
redis.call('SET', KEYS[1], string.format('%.3f', nextAt), 'PX', math.ceil(nextAt - now) + 1000)
return {1, string.format('%.3f', wait)}
`;

/** Empties the bucket until ARGV[2]; never shortens a longer pause or a fuller spend already recorded. */
const PAUSE = `
local interval = tonumber(ARGV[4]) / tonumber(ARGV[1])
local emptyUntil = tonumber(ARGV[2]) + (tonumber(ARGV[1]) - 1) * interval
local fullAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if emptyUntil <= fullAt then return 0 end
redis.call('SET', KEYS[1], string.format('%.3f', emptyUntil), 'PX', math.ceil(emptyUntil - tonumber(ARGV[3])) + 1000)
return 1
`;

/**
 * The governor's buckets in Redis, so N replicas together spend one budget.
 * While Redis is away each replica spends from its own in-process bucket (the
 * full budget each: the upstream's 429 and Retry-After pause still protect).
 */
export class RedisRateStore implements RateStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly local: RateStore,
    private readonly now: () => number = Date.now,
  ) {}

  async reserve(key: string, perMinute: number, nowMs: number, maxWaitMs: number): Promise<Reservation> {
    const result = await this.redis.attempt((client) =>
      client.eval(RESERVE, 1, BUDGET_KEY_PREFIX + key, String(perMinute), String(nowMs), String(maxWaitMs), String(RATE_WINDOW_MS)),
    );
    const parsed = result.ok ? parseReservation(result.value) : undefined;
    if (parsed === undefined) return this.local.reserve(key, perMinute, nowMs, maxWaitMs);
    return parsed;
  }

  async pause(key: string, perMinute: number, untilMs: number): Promise<void> {
    // The local bucket pauses too: if Redis goes away next, this replica still honours the upstream's Retry-After.
    await this.local.pause(key, perMinute, untilMs);
    await this.redis.attempt((client) =>
      client.eval(PAUSE, 1, BUDGET_KEY_PREFIX + key, String(perMinute), String(untilMs), String(this.now()), String(RATE_WINDOW_MS)),
    );
  }
}

function parseReservation(reply: unknown): Reservation | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const waitMs = Number(reply[1]);
  if (!Number.isFinite(waitMs)) return undefined;
  return reply[0] === 1 ? { granted: true, waitMs } : { granted: false, retryAfterMs: waitMs };
}
