import { setTimeout as delay } from 'node:timers/promises';
import type { Fetched } from '../datasources/fetched';
import type { AnswerStore } from '../upstream/answerStore';
import type { SharedRedis } from './sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX. */
const ANSWER_KEY_PREFIX = 'answer:';
/** Held by the replica that is fetching an answer, so the others wait for it instead of asking the upstream too. */
const FILL_KEY_PREFIX = 'filling:';

export interface RedisAnswerStoreOptions {
  /**
   * How long a miss waits for another replica that is already fetching the
   * same answer (and how long that replica's claim lasts): the upstream
   * timeout. 0 turns cross-replica coalescing off.
   */
  fillWaitMs: number;
  /** How often a waiting replica looks for the answer. Default 20 ms. */
  pollMs?: number;
}

/**
 * The answer cache in Redis, shared by every replica. While Redis answers,
 * it is the only copy (N replicas do not keep N copies); while it does not,
 * the replica reads and writes its own in-process store, so answers cached
 * during an outage still save upstream calls. Never rejects.
 *
 * A miss also coalesces across replicas: the first replica to miss claims the
 * key (`SET NX PX`) and fetches; the others, missing meanwhile, wait for its
 * answer to appear instead of each making the same upstream call, as the call
 * path's in-process coalescing does within one replica.
 */
export class RedisAnswerStore implements AnswerStore {
  private readonly fillWaitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly redis: SharedRedis,
    private readonly local: AnswerStore,
    options: RedisAnswerStoreOptions = { fillWaitMs: 0 },
  ) {
    this.fillWaitMs = options.fillWaitMs;
    this.pollMs = options.pollMs ?? 20;
  }

  async get(key: string): Promise<Fetched<unknown> | undefined> {
    const read = await this.read(key);
    if (read === 'unavailable') return this.local.get(key);
    if (read !== undefined || this.fillWaitMs <= 0) return read;
    return this.waitForAnotherFetch(key);
  }

  async set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void> {
    const ttlMs = Math.max(1, Math.ceil(keepMs));
    const written = await this.redis.attempt((client) =>
      client
        .multi()
        .set(ANSWER_KEY_PREFIX + key, JSON.stringify(entry), 'PX', ttlMs)
        .del(FILL_KEY_PREFIX + key)
        .exec(),
    );
    if (!written.ok) await this.local.set(key, entry, keepMs);
  }

  private async read(key: string): Promise<Fetched<unknown> | undefined | 'unavailable'> {
    const read = await this.redis.attempt((client) => client.get(ANSWER_KEY_PREFIX + key));
    if (!read.ok) return 'unavailable';
    return read.value === null ? undefined : parseEntry(read.value);
  }

  /**
   * Another replica may have stored the answer (and dropped its claim) between
   * our miss and our claim: look once more before fetching what is already there.
   */
  private async recheckAfterClaim(key: string): Promise<Fetched<unknown> | undefined> {
    const read = await this.read(key);
    if (read === 'unavailable' || read === undefined) return undefined;
    await this.redis.attempt((client) => client.del(FILL_KEY_PREFIX + key));
    return read;
  }

  /** Undefined (so the caller fetches) when this replica claims the key, or when the claimant's answer does not come in time. */
  private async waitForAnotherFetch(key: string): Promise<Fetched<unknown> | undefined> {
    const claim = await this.redis.attempt((client) => client.set(FILL_KEY_PREFIX + key, '1', 'PX', this.fillWaitMs, 'NX'));
    if (!claim.ok) return undefined;
    if (claim.value === 'OK') return this.recheckAfterClaim(key);
    const giveUpAt = Date.now() + this.fillWaitMs;
    while (Date.now() < giveUpAt) {
      await delay(this.pollMs);
      const read = await this.read(key);
      if (read === 'unavailable') return this.local.get(key);
      if (read !== undefined) return read;
      // The claimant gave up (its fetch failed): stop waiting and fetch.
      const claimed = await this.redis.attempt((client) => client.exists(FILL_KEY_PREFIX + key));
      if (!claimed.ok || claimed.value === 0) return undefined;
    }
    return undefined;
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
