import type { Charge, SharedCallerSlots, SpentSlot } from '../../reporting/budget/callerSlots';
import { repairWrongType, repairWrongTypes } from '../connection/readValue';
import type { SharedRedis } from '../connection/sharedRedis';
import { ttlMs } from '../connection/ttl';
import { MAX_CLOCK_SKEW_MS } from './storedTable';

/**
 * Keys under REDIS_KEY_PREFIX: a sorted set per caller of its parts of the
 * slots its dashboard asks spent (member `<slot id>|<part>`, scored by when),
 * and one sorted set of every slot callers' asks spent (member: the slot's
 * id). Each is trimmed to the window at every write and expires a window
 * after its last write.
 */
const CALLER_KEY_PREFIX = 'reporting:callers:';
const SPENT_KEY = 'reporting:callers-spent';

/** A slot id as CallerSlots makes it (`<uuid>:<n>`) and a part of a slot (0 < part ≤ 1). */
const MEMBER = /^([0-9a-f-]{36}:\d+)\|(\d+(?:\.\d+)?(?:e-?\d+)?)$/;

/**
 * The fair share's ledger on Redis, shared by the replicas: a caller that
 * spent its share through one replica is refused on every other. Reads tell
 * "unknown" (undefined) when Redis is away or refuses, and the queue counts
 * this replica's own charges; a member that is not what the subgraph writes
 * (or dated further ahead than clock skew explains) is removed and counted,
 * a key of another type deleted and written again.
 */
class RedisCallerSlots implements SharedCallerSlots {
  /** Writes in flight (`written` awaits them). */
  private readonly writing = new Set<Promise<boolean>>();

  constructor(
    private readonly redis: SharedRedis,
    private readonly windowMs: number,
  ) {}

  async chargesOf(caller: string, now: number): Promise<Charge[] | undefined> {
    const key = CALLER_KEY_PREFIX + caller;
    const read = repairWrongType(
      this.redis,
      key,
      await this.redis.attempt((client) => client.zrange(key, `(${now - this.windowMs}`, '+inf', 'BYSCORE', 'WITHSCORES')),
    );
    if (!read.ok) return read.failure === 'refused' && read.reason === 'WRONGTYPE' ? [] : undefined;
    const charges: Charge[] = [];
    for (let index = 0; index + 1 < read.value.length; index += 2) {
      const member = read.value[index] ?? '';
      const at = Number(read.value[index + 1]);
      const found = MEMBER.exec(member);
      const slots = found === null ? Number.NaN : Number(found[2]);
      if (found === null || !(slots > 0 && slots <= 1) || !Number.isFinite(at) || at > now + MAX_CLOCK_SKEW_MS) {
        this.redis.discardBadValue(key, { scoredMember: member });
        continue;
      }
      charges.push({ id: found[1] ?? member, at, slots });
    }
    return charges;
  }

  async slotsSpent(now: number): Promise<number | undefined> {
    // Future-dated members are counted too: a count cannot name them, and the writes trim only the past.
    const read = repairWrongType(
      this.redis,
      SPENT_KEY,
      await this.redis.attempt((client) => client.zcount(SPENT_KEY, `(${now - this.windowMs}`, '+inf')),
    );
    if (!read.ok) return read.failure === 'refused' && read.reason === 'WRONGTYPE' ? 0 : undefined;
    return read.value;
  }

  record(slot: SpentSlot): Promise<boolean> {
    const write = this.write(slot).then(async (held) => held || this.write(slot));
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
    return write;
  }

  /** Resolves once every write started so far settled (tests). */
  async written(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  /**
   * One pipeline (not MULTI: a key of another type refuses its own commands
   * only); a key refused as WRONGTYPE is deleted (counted), and `record`
   * writes the slot once more, after the delete on the same connection.
   */
  private async write(slot: SpentSlot): Promise<boolean> {
    const keepMs = ttlMs(this.windowMs) ?? 1;
    const oldest = `(${slot.at - this.windowMs}`;
    const keys: string[] = [];
    const written = await this.redis.attempt((client) => {
      const pipeline = client.pipeline();
      for (const { caller, slots } of slot.parts) {
        const key = CALLER_KEY_PREFIX + caller;
        pipeline.zadd(key, slot.at, `${slot.id}|${slots}`).zremrangebyscore(key, '-inf', oldest).pexpire(key, keepMs);
        keys.push(key, key, key);
      }
      pipeline.zadd(SPENT_KEY, slot.at, slot.id).zremrangebyscore(SPENT_KEY, '-inf', oldest).pexpire(SPENT_KEY, keepMs);
      keys.push(SPENT_KEY, SPENT_KEY, SPENT_KEY);
      return pipeline.exec();
    });
    return repairWrongTypes(this.redis, keys, written);
  }
}

/** The replicas' fair-share ledger (REDIS_URL), over DASHBOARD_SHARE_WINDOW_SECONDS. */
export function sharedCallerSlots(
  redis: SharedRedis,
  config: { analytics: { dashboardShareWindowSeconds: number } },
): SharedCallerSlots & { written(): Promise<void> } {
  return new RedisCallerSlots(redis, config.analytics.dashboardShareWindowSeconds * 1000);
}
