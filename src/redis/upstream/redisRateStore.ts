import { LocalShare } from './localShare';
import { RATE_WINDOW_MS, type RateStore, type Reservation } from '../../upstream/stores/rateStore';
import type { SharedRedis } from '../connection/sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX. */
const BUDGET_KEY_PREFIX = 'budget:';
/** A bucket is never full further ahead than this (a 429's pause included): a time beyond it was not written by us. */
const MAX_AHEAD_MS = 24 * 3_600_000;
/** How often a replica reads the shared buckets it spends from (as often as the roster's heartbeat), so that if Redis goes away it knows what the others spent. */
const LOOK_MS = 5_000;

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
 * strings: Redis truncates Lua numbers it returns to integers. Each step
 * also returns the bucket's "full at" after it (what `LocalShare` starts from
 * if Redis goes away next). The key
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
if wait > tonumber(ARGV[3]) then return {0, string.format('%.3f', wait), string.format('%.3f', fullAt)} end
redis.call('SET', KEYS[1], string.format('%.3f', nextAt), 'PX', math.ceil(nextAt - now) + 1000)
return {1, string.format('%.3f', wait), string.format('%.3f', nextAt)}
`;

/** Empties the bucket until ARGV[2]; never shortens a longer pause or a fuller spend already recorded. */
const PAUSE = `${READ_FULL_AT}
local interval = tonumber(ARGV[4]) / tonumber(ARGV[1])
local now = tonumber(ARGV[3])
local emptyUntil = math.min(tonumber(ARGV[2]), now + tonumber(ARGV[5])) + (tonumber(ARGV[1]) - 1) * interval
local fullAt = readFullAt(KEYS[1], now, tonumber(ARGV[4]), tonumber(ARGV[5])) or 0
if emptyUntil <= fullAt then return string.format('%.3f', fullAt) end
redis.call('SET', KEYS[1], string.format('%.3f', emptyUntil), 'PX', math.ceil(emptyUntil - now) + 1000)
return string.format('%.3f', emptyUntil)
`;

/**
 * The governor's buckets in Redis, so N replicas together spend one budget.
 * When the bucket cannot be shared (Redis away, or refusing the write: full
 * under `noeviction`), a replica spends its share of the rate,
 * `perMinute / replicas last seen` (replicaRoster.ts), from the shared bucket
 * as it last saw it (localShare.ts): the replicas together never spend more
 * than the budget, and below one a minute each its turn. It sees the shared
 * bucket at each step it takes there and every LOOK_MS for the budgets it
 * watches, so a replica that spent nothing lately still knows what the others
 * spent. A refusal is that one command's failure: the replica stays shared
 * for everything else.
 */
export class RedisRateStore implements RateStore {
  private readonly local = new LocalShare();
  /** Budget key → its rate: the buckets read every LOOK_MS. */
  private readonly watched = new Map<string, number>();
  private readonly sharedAgainListeners = new Set<() => void>();
  /** Spent (or refused) from the local share since the shared bucket was last reached. */
  private spentLocally = false;
  private looking: NodeJS.Timeout | undefined;
  /** The charge of local spends under way (chargeBack). */
  private charging: Promise<void> | undefined;

  constructor(
    private readonly redis: SharedRedis,
    private readonly now: () => number = Date.now,
  ) {
    redis.onRecovered(() => this.sharedAgain());
  }

  async reserve(key: string, perMinute: number, nowMs: number, maxWaitMs: number): Promise<Reservation> {
    this.watch(key, perMinute);
    // What was spent locally reaches the shared bucket before it grants anything: a Redis restarted empty
    // would otherwise grant this first ask from a full bucket, on top of the local spends.
    await this.chargeBack();
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
    if (parsed === undefined) {
      this.spentLocally = true;
      return this.local.reserve(key, perMinute, this.redis.roster.lastSeat(), nowMs, maxWaitMs);
    }
    this.sharedAgain();
    this.local.saw(key, parsed.fullAtMs);
    return parsed.reservation;
  }

  async pause(key: string, perMinute: number, untilMs: number): Promise<void> {
    // The local bucket pauses too: if Redis goes away next, this replica still honours the upstream's Retry-After.
    this.local.pause(key, perMinute, this.redis.roster.lastSeat(), untilMs);
    await this.emptyUntil(key, perMinute, untilMs);
  }

  /** Empties the shared bucket until `untilMs` (a 429's pause, or local spends charged back), never shortening it; sees the result. */
  private async emptyUntil(key: string, perMinute: number, untilMs: number): Promise<void> {
    const paused = await this.redis.attempt((client) =>
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
    const fullAtMs = paused.ok ? Number(paused.value) : Number.NaN;
    if (Number.isFinite(fullAtMs)) this.local.saw(key, fullAtMs);
  }

  /**
   * Tells `listener` each time this replica spends from the shared bucket
   * again after it spent (or was refused) from its local share: a next-slot
   * time learned from the local share no longer holds. Returns the unsubscribe.
   */
  onSharedAgain(listener: () => void): () => void {
    this.sharedAgainListeners.add(listener);
    return () => this.sharedAgainListeners.delete(listener);
  }

  /** Reads the bucket `key` every LOOK_MS from now on (the governor's budgets are watched from the start). */
  watch(key: string, perMinute: number): void {
    if (this.watched.has(key)) return;
    this.watched.set(key, perMinute);
    if (this.looking !== undefined) return;
    this.looking = setInterval(() => void this.look(), LOOK_MS);
    this.looking.unref();
    void this.look();
  }

  /** Stops reading the watched buckets (the process is closing). */
  close(): void {
    clearInterval(this.looking);
    this.looking = undefined;
  }

  /** Reads the watched buckets now (every LOOK_MS; tests call it): a bucket with no key is full. */
  async look(): Promise<void> {
    for (const key of this.watched.keys()) {
      const read = await this.redis.attempt((client) => client.get(BUDGET_KEY_PREFIX + key));
      if (!read.ok) return;
      const fullAtMs = read.value === null ? 0 : Number(read.value);
      // A value we did not write is repaired by the next step's script; until then the last one seen holds.
      // A look never forgets a local spend the bucket has not seen: only a charge (or a step there) sees it.
      if (Number.isFinite(fullAtMs) && fullAtMs <= this.now() + MAX_AHEAD_MS) this.local.looked(key, fullAtMs);
    }
  }

  /**
   * Redis answers again after this replica spent (or was refused) locally:
   * its local requests are charged to the shared bucket (so the next shared
   * grant does not follow them too closely), and the listeners are told.
   */
  private sharedAgain(): void {
    void this.chargeBack();
    if (!this.spentLocally) return;
    this.spentLocally = false;
    for (const listener of [...this.sharedAgainListeners]) listener();
  }

  /**
   * Charges the requests spent from the local share that the shared bucket
   * has not seen (each such budget is seen again once charged; while Redis
   * is away nothing is, and the next step tries again). One charge at a time:
   * the asks arriving meanwhile wait for it, even when nothing is left
   * unseen (the charge under way has taken it all). Charging twice is
   * harmless (PAUSE never shortens).
   */
  private chargeBack(): Promise<void> {
    const unseen = this.local.spentUnseen();
    if (unseen.length === 0) return this.charging ?? Promise.resolve();
    this.charging ??= (async () => {
      try {
        for (const [key, fullAtMs] of unseen) {
          const perMinute = this.watched.get(key);
          // Full at `fullAtMs` is empty until one interval per slot of burst before it (PAUSE's arithmetic).
          if (perMinute !== undefined) await this.emptyUntil(key, perMinute, fullAtMs - (perMinute - 1) * (RATE_WINDOW_MS / perMinute));
        }
      } finally {
        this.charging = undefined;
      }
    })();
    return this.charging;
  }
}

function parseReservation(reply: unknown): { reservation: Reservation; fullAtMs: number } | undefined {
  if (!Array.isArray(reply) || reply.length !== 3) return undefined;
  const waitMs = Number(reply[1]);
  const fullAtMs = Number(reply[2]);
  if (!Number.isFinite(waitMs) || waitMs < 0 || !Number.isFinite(fullAtMs)) return undefined;
  return { reservation: reply[0] === 1 ? { granted: true, waitMs } : { granted: false, retryAfterMs: waitMs }, fullAtMs };
}
