import { RATE_WINDOW_MS, type RateStore, type Reservation } from './rateStore';
import type { SharedRedis } from './redis/sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX. */
const BUDGET_KEY_PREFIX = 'budget:';
/** A bucket is never full further ahead than this (a 429's pause included): a time beyond it was not written by us. */
const MAX_AHEAD_MS = 24 * 3_600_000;

/**
 * Reads the bucket's "full at" instant, repairing what we did not write: a
 * value that is not a number (a `junk` string) or lies beyond MAX_AHEAD_MS
 * (or a key of another type) is overwritten at once with a bucket emptied
 * for one window from now: the safe side, no replica overspends. ARGV[1] is now, ARGV[2] the window, ARGV[3] MAX_AHEAD_MS.
 */
const READ_FULL_AT = `
local function readFullAt(key, now, window, maxAhead)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'none' then return nil end
  local fullAt = nil
  if kind == 'string' then fullAt = tonumber(redis.call('GET', key)) end
  if fullAt ~= nil and fullAt == fullAt and fullAt <= now + maxAhead then return fullAt end
  redis.call('DEL', key)
  redis.call('SET', key, string.format('%.3f', now + window), 'PX', window + 1000)
  return now + window
end`;

/**
 * The same GCRA token bucket as MemoryRateStore (one number per bucket: the
 * instant it is full again), as one atomic script per method so replicas
 * reserving at once never both take the last request. Numbers travel as
 * strings: Redis truncates Lua numbers it returns to integers. The key
 * expires when the bucket would be full anyway, so idle buckets cost nothing.
 */
const RESERVE = `${READ_FULL_AT}
local interval = tonumber(ARGV[4]) / tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local fullAt = readFullAt(KEYS[1], now, tonumber(ARGV[4]), tonumber(ARGV[5])) or now
if fullAt < now then fullAt = now end
local nextAt = fullAt + interval
local wait = nextAt - tonumber(ARGV[1]) * interval - now
if wait < 0 then wait = 0 end
if wait > tonumber(ARGV[3]) then return {0, string.format('%.3f', wait)} end
redis.call('SET', KEYS[1], string.format('%.3f', nextAt), 'PX', math.ceil(nextAt - now) + 1000)
return {1, string.format('%.3f', wait)}
`;

/** Empties the bucket until ARGV[2]; never shortens a longer pause or a fuller spend already recorded. */
const PAUSE = `${READ_FULL_AT}
local interval = tonumber(ARGV[4]) / tonumber(ARGV[1])
local now = tonumber(ARGV[3])
local emptyUntil = math.min(tonumber(ARGV[2]), now + tonumber(ARGV[5])) + (tonumber(ARGV[1]) - 1) * interval
local fullAt = readFullAt(KEYS[1], now, tonumber(ARGV[4]), tonumber(ARGV[5])) or 0
if emptyUntil <= fullAt then return 0 end
redis.call('SET', KEYS[1], string.format('%.3f', emptyUntil), 'PX', math.ceil(emptyUntil - now) + 1000)
return 1
`;

/**
 * The governor's buckets in Redis, so N replicas together spend one budget.
 * When the bucket cannot be shared (Redis away, or refusing the write: full
 * under `noeviction`), a replica spends from its own in-process bucket at
 * its share of the rate, `perMinute / replicas last seen` (replicaRoster.ts):
 * the replicas together never spend more than the budget. A refusal is that
 * one command's failure: the replica stays shared for everything else.
 */
export class RedisRateStore implements RateStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly local: RateStore,
    private readonly now: () => number = Date.now,
  ) {}

  async reserve(key: string, perMinute: number, nowMs: number, maxWaitMs: number): Promise<Reservation> {
    const result = await this.redis.attempt((client) =>
      client.eval(
        RESERVE,
        1,
        BUDGET_KEY_PREFIX + key,
        String(perMinute),
        String(nowMs),
        String(maxWaitMs),
        String(RATE_WINDOW_MS),
        String(MAX_AHEAD_MS),
      ),
    );
    const parsed = result.ok ? parseReservation(result.value) : undefined;
    if (parsed === undefined) return this.local.reserve(key, this.share(perMinute), nowMs, maxWaitMs);
    return parsed;
  }

  async pause(key: string, perMinute: number, untilMs: number): Promise<void> {
    // The local bucket pauses too: if Redis goes away next, this replica still honours the upstream's Retry-After.
    await this.local.pause(key, this.share(perMinute), untilMs);
    await this.redis.attempt((client) =>
      client.eval(
        PAUSE,
        1,
        BUDGET_KEY_PREFIX + key,
        String(perMinute),
        String(untilMs),
        String(this.now()),
        String(RATE_WINDOW_MS),
        String(MAX_AHEAD_MS),
      ),
    );
  }

  /** This replica's part of a budget it cannot share. */
  private share(perMinute: number): number {
    return perMinute / Math.max(1, this.redis.roster.lastSeen());
  }
}

function parseReservation(reply: unknown): Reservation | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const waitMs = Number(reply[1]);
  if (!Number.isFinite(waitMs) || waitMs < 0) return undefined;
  return reply[0] === 1 ? { granted: true, waitMs } : { granted: false, retryAfterMs: waitMs };
}
