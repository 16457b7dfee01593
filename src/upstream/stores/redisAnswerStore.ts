import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Fetched } from '../datasources/fetched';
import type { AnswerStore, Claim } from './answerStore';
import type { SharedRedis } from './redis/sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX. */
const ANSWER_KEY_PREFIX = 'answer:';
/** Held by the replica that is fetching an answer, so the others wait for it instead of asking the upstream too. */
const FILL_KEY_PREFIX = 'filling:';

/** Drops a claim only if it is still ours: a lapsed claim may have been taken by another replica since. */
const RELEASE_OWN_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export interface RedisAnswerStoreOptions {
  /**
   * How long a miss waits for another replica that is already fetching the
   * same answer (and how long that replica's claim lasts): the upstream
   * timeout. 0 turns cross-replica coalescing off.
   */
  fillWaitMs: number;
  /** How often a waiting replica looks for the answer or the claim's release. Default 20 ms. */
  pollMs?: number;
  /** Clock of the fill wait's deadline. Default Date.now. */
  now?: () => number;
  /** Told when a claim starts waiting for another replica's fill (tests await it instead of sleeping). */
  onWait?: (key: string) => void;
}

/**
 * The answer cache in Redis, shared by every replica. While Redis answers,
 * it is the only copy (N replicas do not keep N copies); while it does not,
 * the replica reads, writes and claims in its own in-process store, so
 * answers cached during an outage still save upstream calls. Never rejects.
 *
 * Claims coalesce across replicas: the first replica to miss claims the key
 * (`SET NX PX`) and fetches; the others wait for its answer, or for its
 * `fail`, which drops the claim at once so that they fetch for themselves
 * instead of waiting for the claim to lapse.
 */
export class RedisAnswerStore implements AnswerStore {
  private readonly fillWaitMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly onWait: (key: string) => void;
  /** key → the token of this replica's claim in Redis. */
  private readonly ownClaims = new Map<string, string>();
  /** Keys claimed in the local store because Redis was away when they were claimed. */
  private readonly localClaims = new Set<string>();

  constructor(
    private readonly redis: SharedRedis,
    private readonly local: AnswerStore,
    options: RedisAnswerStoreOptions = { fillWaitMs: 0 },
  ) {
    this.fillWaitMs = options.fillWaitMs;
    this.pollMs = options.pollMs ?? 20;
    this.now = options.now ?? Date.now;
    this.onWait = options.onWait ?? (() => {});
  }

  async get(key: string): Promise<Fetched<unknown> | undefined> {
    const read = await this.read(key);
    return read === 'unavailable' ? this.local.get(key) : read;
  }

  async claim(key: string): Promise<Claim> {
    if (this.fillWaitMs <= 0) return { kind: 'unclaimed' };
    const token = randomUUID();
    const claimed = await this.redis.attempt((client) => client.set(FILL_KEY_PREFIX + key, token, 'PX', this.fillWaitMs, 'NX'));
    if (!claimed.ok) return this.claimLocally(key);
    if (claimed.value !== 'OK') return this.waitForAnotherFill(key);
    this.ownClaims.set(key, token);
    return this.recheckAfterClaim(key);
  }

  async set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void> {
    this.ownClaims.delete(key);
    const claimedLocally = this.localClaims.delete(key);
    const written = await this.redis.attempt((client) => {
      const steps = client.multi();
      if (keepMs > 0) steps.set(ANSWER_KEY_PREFIX + key, JSON.stringify(entry), 'PX', Math.ceil(keepMs));
      // Once the answer is in, any claim on it is over, whoever holds it.
      return steps.del(FILL_KEY_PREFIX + key).exec();
    });
    if (!written.ok || claimedLocally) await this.local.set(key, entry, keepMs);
  }

  async fail(key: string): Promise<void> {
    const token = this.ownClaims.get(key);
    this.ownClaims.delete(key);
    if (this.localClaims.delete(key)) await this.local.fail(key);
    if (token !== undefined) await this.redis.attempt((client) => client.eval(RELEASE_OWN_CLAIM, 1, FILL_KEY_PREFIX + key, token));
  }

  private async read(key: string): Promise<Fetched<unknown> | undefined | 'unavailable'> {
    const read = await this.redis.attempt((client) => client.get(ANSWER_KEY_PREFIX + key));
    if (!read.ok) return 'unavailable';
    return read.value === null ? undefined : parseEntry(read.value);
  }

  private async claimLocally(key: string): Promise<Claim> {
    const claim = await this.local.claim(key);
    if (claim.kind === 'claimed') this.localClaims.add(key);
    return claim;
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

  /** Until the claimant's answer arrives (`filled`), or its claim is gone without one: failed, or lapsed (`unclaimed`). */
  private async waitForAnotherFill(key: string): Promise<Claim> {
    const giveUpAt = this.now() + this.fillWaitMs;
    this.onWait(key);
    while (this.now() < giveUpAt) {
      await delay(this.pollMs);
      const read = await this.read(key);
      if (read === 'unavailable') return { kind: 'unclaimed' };
      if (read !== undefined) return { kind: 'filled', entry: read };
      const claimed = await this.redis.attempt((client) => client.exists(FILL_KEY_PREFIX + key));
      if (!claimed.ok || claimed.value === 0) return { kind: 'unclaimed' };
    }
    return { kind: 'unclaimed' };
  }
}

/** Anything else under our key (another version's format, a hand edit) is a miss, never a malformed answer. */
function parseEntry(raw: string): Fetched<unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || !('value' in parsed) || !('fetchedAt' in parsed)) return undefined;
    return typeof parsed.fetchedAt === 'number' ? { value: parsed.value, fetchedAt: parsed.fetchedAt } : undefined;
  } catch {
    return undefined;
  }
}
