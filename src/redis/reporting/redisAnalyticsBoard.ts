import type { MetricName } from '../../kernel/wire';
import { METRIC_NAMES as WIRE_METRIC_NAMES } from '../../../contract/names';
import { MAX_PROMISED_MS, type AnalyticsBoard, type PostedNeed } from '../../reporting/tables/analyticsBoard';
import { DEMAND_HALF_LIFE_MS } from '../../reporting/tables/demand';
import { takeLease, type Lease } from '../connection/lease';
import { fieldsOf, readField, readMembers, repairWrongType, repairWrongTypes } from '../connection/readValue';
import { ttlMs } from '../connection/ttl';
import type { SharedRedis } from '../connection/sharedRedis';
import { MAX_CLOCK_SKEW_MS } from './storedTable';

/**
 * Keys under REDIS_KEY_PREFIX: a hash per table of what each replica waits
 * for (field: the replica's id), the decayed demand per table, the set
 * of metrics the account's plan lacks, and a lease per table whose query a
 * replica has in flight.
 */
const WAITING_KEY_PREFIX = 'analytics:waiting:';
const DEMAND_KEY_PREFIX = 'analytics:demand:';
const PLAN_KEY = 'analytics:plan:unavailable';
/** A sorted set of the coming slots promised to tables: member `<table key>|<instant>`, scored by the instant. */
const CLAIMS_KEY = 'analytics:slot-claims';
/** A lease per table while one replica's query of it is in flight (`claimFetch`). */
const FETCHING_KEY_PREFIX = 'analytics:fetching:';
/** A replica that dies mid-query holds its table's claim this long at most: the lease lapses unless renewed. */
const FETCH_LEASE_MS = 10_000;

/** A table's demand is forgotten after ten half-lives without an ask (it is below 0.1 % of its last value by then). */
const DEMAND_KEEP_MS = 10 * DEMAND_HALF_LIFE_MS;
/** A learned plan is relearned daily: an upgraded account gets its metrics back without a restart of every replica. */
const PLAN_KEEP_MS = 24 * 3_600_000;
/** Beyond the longest ask deadline, for clock skew between replicas. */
const WAITING_MARGIN_MS = 5_000;

/**
 * Adds one ask to a table's demand, decayed by its half-life since the last
 * (the same score as src/reporting/tables/demand.ts, for the whole cluster),
 * atomically. A value that does not read as `score:at` (or an `at` further
 * ahead than clock skew explains), or a key of another type, counts as no
 * demand and is overwritten.
 * ARGV: now, half-life, keep, most clock skew.
 */
const RECORD_DEMAND = `
local now = tonumber(ARGV[1])
local score = 0
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'string' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
local stored = redis.call('GET', KEYS[1])
if stored then
  local s, at = string.match(stored, '^([%d%.]+):(%d+)$')
  s = tonumber(s)
  at = tonumber(at)
  if s and at and s < 1e9 and at <= now + tonumber(ARGV[4]) then score = s * 0.5 ^ (math.max(0, now - at) / tonumber(ARGV[2])) end
end
score = score + 1
redis.call('SET', KEYS[1], string.format('%.6f:%.0f', score, now), 'PX', ARGV[3])
return string.format('%.6f', score)
`;

/**
 * Promises a table the first slot not promised to another (the rule of
 * src/reporting/tables/slotClaims.ts, atomically for the cluster): claims
 * within half a slot of an instant are of that slot; a slot that passed is
 * forgotten; a key of another type is deleted. Returns the slot's instant,
 * or false when every slot looked at is promised to another table.
 * ARGV: claimant, from, slot ms, most slots, now, keep ms.
 */
const CLAIM_SLOT = `
local claimant = ARGV[1]
local from = tonumber(ARGV[2])
local slot = tonumber(ARGV[3])
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'zset' and kind ~= 'none' then redis.call('DEL', KEYS[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[5]) - slot)
for index = 0, tonumber(ARGV[4]) - 1 do
  local at = from + index * slot
  local near = redis.call('ZRANGEBYSCORE', KEYS[1], at - slot / 2, at + slot / 2, 'WITHSCORES')
  local own = nil
  local taken = false
  for i = 1, #near, 2 do
    if string.match(near[i], '^(.*)|[^|]*$') == claimant then own = near[i + 1] else taken = true end
  end
  if not taken then
    if own then return own end
    redis.call('ZADD', KEYS[1], at, claimant .. '|' .. at)
    redis.call('PEXPIRE', KEYS[1], ARGV[6])
    return tostring(at)
  end
end
return false
`;

const METRIC_NAMES: ReadonlySet<string> = new Set(WIRE_METRIC_NAMES);

/**
 * The replicas' analytics board on Redis. Posts are written in the
 * background, coalesced per table (the latest list wins), one pipeline at a
 * time; reads fall back to "nothing known" (this replica's own view) when
 * Redis is away, slow or refuses.
 */
class RedisAnalyticsBoard implements AnalyticsBoard {
  private readonly unposted = new Map<string, PostedNeed[]>();
  private readonly unlearned = new Set<MetricName>();
  /** The write loop while it runs. */
  private posting: Promise<void> | undefined;
  /** This replica's claims on the tables whose query it has in flight. */
  private readonly fetching = new Map<string, Lease>();

  constructor(
    private readonly redis: SharedRedis,
    /** The longest an ask waits (ANALYTICS_ASK_DEADLINE_MS): a table's waiting hash outlives its last post by this. */
    private readonly askDeadlineMs: number,
  ) {}

  post(key: string, needs: readonly PostedNeed[]): void {
    this.unposted.set(key, [...needs]);
    this.posting ??= this.writePosts();
  }

  /** Posts and learned metrics are written in the background; this resolves once all made so far are. */
  async posted(): Promise<void> {
    while (this.posting !== undefined) await this.posting;
  }

  async othersWaiting(key: string, now: number): Promise<PostedNeed[]> {
    const waitingKey = WAITING_KEY_PREFIX + key;
    const read = repairWrongType(this.redis, waitingKey, await this.redis.attempt((client) => client.hgetall(waitingKey)));
    if (!read.ok) return [];
    const needs: PostedNeed[] = [];
    const done: string[] = [];
    for (const [replica, text] of Object.entries(read.value)) {
      if (replica === this.redis.roster.id) continue;
      // A field that does not read as asks is deleted and counted there.
      const posted = readField(this.redis, waitingKey, replica, text, needsOf);
      if (posted === undefined) continue;
      // Past deadlines are left out, and so are deadlines no ask can have (a poisoned entry would otherwise ride every query).
      const live = posted.filter((need) => need.deadline > now && need.deadline <= now + this.keepMs(need));
      needs.push(...live);
      // A replica that stopped leaves nothing live: its field goes, so the hash stays small.
      if (live.length === 0) done.push(replica);
    }
    if (done.length > 0) void this.redis.attempt((client) => client.hdel(waitingKey, ...done));
    return needs;
  }

  async recordDemand(key: string, now: number): Promise<number | undefined> {
    const read = await this.redis.attempt((client) =>
      client.eval(
        RECORD_DEMAND,
        1,
        DEMAND_KEY_PREFIX + key,
        String(Math.round(now)),
        String(DEMAND_HALF_LIFE_MS),
        String(clampedTtl(DEMAND_KEEP_MS)),
        String(MAX_CLOCK_SKEW_MS),
      ),
    );
    const score = read.ok ? Number(read.value) : Number.NaN;
    return Number.isFinite(score) && score > 0 ? score : undefined;
  }

  async unavailableMetrics(): Promise<MetricName[]> {
    const read = repairWrongType(this.redis, PLAN_KEY, await this.redis.attempt((client) => client.smembers(PLAN_KEY)));
    return read.ok ? readMembers(this.redis, PLAN_KEY, read.value, isMetricName) : [];
  }

  learnUnavailable(metric: MetricName): void {
    this.unlearned.add(metric);
    this.posting ??= this.writePosts();
  }

  async claimSlot(claimant: string, from: number, slotMs: number, most: number, now: number): Promise<number | false | undefined> {
    const read = await this.redis.attempt((client) =>
      client.eval(
        CLAIM_SLOT,
        1,
        CLAIMS_KEY,
        claimant,
        String(Math.round(from)),
        String(Math.round(slotMs)),
        String(most),
        String(Math.round(now)),
        String(clampedTtl(MAX_PROMISED_MS + slotMs)),
      ),
    );
    if (!read.ok) return undefined;
    if (read.value === null) return false;
    const at = Number(read.value);
    // Not what the script returns (a value of another writer): this replica's own ledger decides.
    return Number.isFinite(at) && at >= now - slotMs && at <= now + MAX_PROMISED_MS + slotMs ? at : undefined;
  }

  async claimantsAt(at: number, slotMs: number): Promise<string[] | undefined> {
    const read = await this.redis.attempt((client) =>
      client.zrangebyscore(CLAIMS_KEY, Math.round(at - slotMs / 2), Math.round(at + slotMs / 2)),
    );
    if (!read.ok) return undefined;
    // Members are `<claimant>|<instant>` (CLAIM_SLOT); one of another shape names no claimant.
    return read.value.flatMap((member) => (member.lastIndexOf('|') > 0 ? [member.slice(0, member.lastIndexOf('|'))] : []));
  }

  async claimFetch(key: string, forMs: number): Promise<boolean> {
    const attempt = await takeLease(this.redis, FETCHING_KEY_PREFIX + key, { leaseMs: FETCH_LEASE_MS, holdAtMostMs: forMs });
    if (attempt.kind === 'held') return false;
    if (attempt.kind === 'taken') this.fetching.set(key, attempt.lease);
    return true;
  }

  releaseFetch(key: string): void {
    const lease = this.fetching.get(key);
    this.fetching.delete(key);
    void lease?.release();
  }

  /** One pipeline at a time, each with the latest list of every table posted since the last, and the metrics learned since. */
  private async writePosts(): Promise<void> {
    try {
      while (this.unposted.size > 0 || this.unlearned.size > 0) {
        const posts = [...this.unposted];
        const learned = [...this.unlearned];
        this.unposted.clear();
        this.unlearned.clear();
        const replica = this.redis.roster.id;
        // The key of each command in order, so a key of another type that refused its write is repaired.
        const keys: string[] = [];
        const written = await this.redis.attempt((client) => {
          // A pipeline, not MULTI: a write Redis refuses (OOM, a key of another type) must not take the withdrawals with it.
          const pipeline = client.pipeline();
          for (const [key, needs] of posts) {
            const waitingKey = WAITING_KEY_PREFIX + key;
            if (needs.length === 0) {
              pipeline.hdel(waitingKey, replica);
              keys.push(waitingKey);
            } else {
              const keepMs = Math.max(...needs.map((need) => this.keepMs(need)));
              pipeline.hset(waitingKey, replica, JSON.stringify(needs)).pexpire(waitingKey, clampedTtl(keepMs));
              keys.push(waitingKey, waitingKey);
            }
          }
          if (learned.length > 0) {
            pipeline.sadd(PLAN_KEY, ...learned).pexpire(PLAN_KEY, clampedTtl(PLAN_KEEP_MS));
            keys.push(PLAN_KEY, PLAN_KEY);
          }
          return pipeline.exec();
        });
        repairWrongTypes(this.redis, keys, written);
      }
    } finally {
      // In the same turn as the last look at the list: a post made a moment later starts a new loop.
      this.posting = undefined;
    }
  }

  /** How far ahead a posted need's deadline may be: an ask's deadline, or for demand a refused ask left, the slot it is owed too. */
  private keepMs(need: PostedNeed): number {
    return this.askDeadlineMs + WAITING_MARGIN_MS + (need.promisedAt === undefined ? 0 : MAX_PROMISED_MS);
  }
}

/** Every TTL written goes through the one clamp (src/redis/connection/ttl.ts). */
function clampedTtl(durationMs: number): number {
  return ttlMs(durationMs) ?? 1;
}

function isMetricName(name: string): name is MetricName {
  return METRIC_NAMES.has(name);
}

/** A replica's post as it writes it: a list of needs, each with known metrics, string urls (or none) and a finite deadline; anything else is a bad entry. */
function needsOf(parsed: unknown): PostedNeed[] | undefined {
  if (!Array.isArray(parsed)) return undefined;
  const needs: PostedNeed[] = [];
  for (const item of parsed as unknown[]) {
    const fields = fieldsOf(item);
    if (fields === undefined || typeof fields.deadline !== 'number' || !Number.isFinite(fields.deadline)) return undefined;
    const { urls, metrics } = fields;
    if (!Array.isArray(metrics) || !metrics.every((metric) => typeof metric === 'string' && isMetricName(metric))) return undefined;
    if (urls !== undefined && (!Array.isArray(urls) || !urls.every((url) => typeof url === 'string'))) return undefined;
    const { promisedAt } = fields;
    if (promisedAt !== undefined && (typeof promisedAt !== 'number' || !Number.isFinite(promisedAt))) return undefined;
    const need: PostedNeed = {
      metrics: metrics as MetricName[],
      deadline: fields.deadline,
      ...(promisedAt === undefined ? {} : { promisedAt }),
    };
    needs.push(urls === undefined ? need : { ...need, urls: urls as string[] });
  }
  return needs;
}

/** The replicas' board (REDIS_URL). */
export function sharedAnalyticsBoard(redis: SharedRedis, config: { analytics: { askDeadlineMs: number } }): AnalyticsBoard {
  return new RedisAnalyticsBoard(redis, config.analytics.askDeadlineMs);
}
