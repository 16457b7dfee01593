import { setTimeout as delay } from 'node:timers/promises';
import type { Fetched } from '../../kernel/fetched';
import type { AnswerStore, Claim } from '../../upstream/stores/answerStore';
import { takeLease, type Lease } from '../connection/lease';
import { fieldsOf, readValue, repairWrongType } from '../connection/readValue';
import type { SharedRedis } from '../connection/sharedRedis';
import { clampTime, ttlMs } from '../connection/ttl';

/** Keys under the configured REDIS_KEY_PREFIX. */
const ANSWER_KEY_PREFIX = 'answer:';
/** Held by the replica that is fetching an answer, so the others wait for it instead of asking the upstream too. */
const FILL_KEY_PREFIX = 'filling:';

export interface RedisAnswerStoreOptions {
  /**
   * How long a miss waits for another replica that is already fetching the
   * same answer (and how long a replica holds a claim at most): the upstream
   * timeout. 0 turns cross-replica coalescing off.
   */
  fillWaitMs: number;
  /**
   * How long a claim outlives a replica that stopped renewing it (crashed, cut off); at most fillWaitMs.
   * The owner renews it every third of this while it fetches (REDIS_STATE_DEFAULTS.answerFill in src/config/redis.ts).
   */
  leaseMs: number;
  /** How often a waiting replica looks for the answer or the claim's release . */
  pollMs: number;
  /** Clock of the fill wait's deadline. Default Date.now. */
  now?: () => number;
  /** Told when a claim starts waiting for another replica's fill (tests await it instead of sleeping). */
  onWait?: (key: string) => void;
}

/**
 * The answer cache in Redis, shared by every replica. While Redis answers,
 * it is the only copy (N replicas do not keep N copies); while it does not,
 * or refuses a write (full), the replica reads, writes and claims in its own
 * in-process store, so answers cached meanwhile still save upstream calls.
 * Never rejects.
 *
 * Claims coalesce across replicas: the first replica to miss takes the key's
 * fill marker (an owner-tokened lease, lease.ts) and fetches, renewing the
 * marker while it does; the others wait for its answer, for its `fail`
 * (which drops the marker at once), or for the marker to lapse when its
 * owner is gone.
 */
export class RedisAnswerStore implements AnswerStore {
  private readonly fillWaitMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly onWait: (key: string) => void;
  /** key → this replica's fill marker in Redis. */
  private readonly ownClaims = new Map<string, Lease>();

  constructor(
    private readonly redis: SharedRedis,
    private readonly local: AnswerStore,
    options: RedisAnswerStoreOptions,
  ) {
    this.fillWaitMs = options.fillWaitMs;
    this.leaseMs = Math.min(options.leaseMs, Math.max(1, options.fillWaitMs));
    this.pollMs = options.pollMs;
    this.now = options.now ?? Date.now;
    this.onWait = options.onWait ?? (() => {});
  }

  async get(key: string): Promise<Fetched<unknown> | undefined> {
    const read = await this.read(key);
    return read === 'unavailable' ? this.local.get(key) : read;
  }

  async claim(key: string): Promise<Claim> {
    if (this.fillWaitMs <= 0) return { kind: 'unclaimed' };
    const taken = await takeLease(this.redis, FILL_KEY_PREFIX + key, { leaseMs: this.leaseMs, holdAtMostMs: this.fillWaitMs });
    // Redis away: no replica to coordinate with (the local store takes no claims; in-process
    // coalescing already leaves one filler per key), so the caller fetches unclaimed.
    if (taken.kind === 'away') return { kind: 'unclaimed' };
    if (taken.kind === 'held') return this.waitForAnotherFill(key);
    this.ownClaims.get(key)?.forget();
    this.ownClaims.set(key, taken.lease);
    return this.recheckAfterClaim(key);
  }

  async set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void> {
    const lease = this.ownClaims.get(key);
    this.ownClaims.delete(key);
    const keepForMs = ttlMs(keepMs);
    const written = await this.redis.attempt((client) => {
      const steps = client.multi();
      if (keepForMs !== undefined) steps.set(ANSWER_KEY_PREFIX + key, JSON.stringify(entry), 'PX', keepForMs);
      // Once the answer is in, any claim on it is over, whoever holds it.
      return steps.del(FILL_KEY_PREFIX + key).exec();
    });
    if (written.ok) lease?.forget();
    else await lease?.release();
    if (!written.ok) await this.local.set(key, entry, keepMs);
  }

  async fail(key: string): Promise<void> {
    const lease = this.ownClaims.get(key);
    this.ownClaims.delete(key);
    await lease?.release();
  }

  private async read(key: string): Promise<Fetched<unknown> | undefined | 'unavailable'> {
    const read = repairWrongType(
      this.redis,
      ANSWER_KEY_PREFIX + key,
      await this.redis.attempt((client) => client.get(ANSWER_KEY_PREFIX + key)),
    );
    if (!read.ok) return read.failure === 'away' ? 'unavailable' : undefined;
    const nowMs = this.now();
    return readValue(this.redis, ANSWER_KEY_PREFIX + key, read.value, (parsed) => validateEntry(parsed, nowMs));
  }

  /**
   * Another replica may have stored the answer (and dropped its claim) between
   * our miss and our claim: look once more before fetching what is already there.
   */
  private async recheckAfterClaim(key: string): Promise<Claim> {
    const read = await this.read(key);
    if (read === 'unavailable' || read === undefined) return { kind: 'claimed' };
    await this.fail(key);
    return { kind: 'filled', entry: read };
  }

  /** Until the claimant's answer arrives (`filled`), or its claim is gone without one: failed, lapsed with its owner, or waited out (`unclaimed`). */
  private async answerAfterRelease(key: string): Promise<Claim> {
    const read = await this.read(key);
    return read === 'unavailable' || read === undefined ? { kind: 'unclaimed' } : { kind: 'filled', entry: read };
  }

  private async waitForAnotherFill(key: string): Promise<Claim> {
    const giveUpAt = this.now() + this.fillWaitMs;
    this.onWait(key);
    while (this.now() < giveUpAt) {
      await delay(this.pollMs);
      const read = await this.read(key);
      if (read === 'unavailable') return { kind: 'unclaimed' };
      if (read !== undefined) return { kind: 'filled', entry: read };
      const claimed = await this.redis.attempt((client) => client.exists(FILL_KEY_PREFIX + key));
      if (!claimed.ok) return { kind: 'unclaimed' };
      // Gone since the read: the owner may have written its answer (with the marker's DEL) in between.
      if (claimed.value === 0) return this.answerAfterRelease(key);
    }
    return { kind: 'unclaimed' };
  }
}

/** What `set` writes: `{ value, fetchedAt }` with a finite `fetchedAt`, never later than now (a future one would never turn stale); anything else is a miss. */
function validateEntry(parsed: unknown, nowMs: number): Fetched<unknown> | undefined {
  const fields = fieldsOf(parsed);
  const fetchedAt = clampTime(fields?.fetchedAt, nowMs, 0);
  if (fields === undefined || !('value' in fields) || fetchedAt === undefined) return undefined;
  return { value: fields.value, fetchedAt };
}
