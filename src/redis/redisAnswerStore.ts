import type { Fetched } from '../datasources/fetched';
import type { AnswerStore } from '../upstream/answerStore';
import type { SharedRedis } from './sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX. */
export const ANSWER_KEY_PREFIX = 'answer:';

/**
 * The answer cache in Redis, shared by every replica. While Redis answers,
 * it is the only copy (N replicas do not keep N copies); while it does not,
 * the replica reads and writes its own in-process store, so answers cached
 * during an outage still save upstream calls. Never rejects.
 */
export class RedisAnswerStore implements AnswerStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly local: AnswerStore,
  ) {}

  async get(key: string): Promise<Fetched<unknown> | undefined> {
    const read = await this.redis.attempt((client) => client.get(ANSWER_KEY_PREFIX + key));
    if (!read.ok) return this.local.get(key);
    return read.value === null ? undefined : parseEntry(read.value);
  }

  async set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void> {
    const ttlMs = Math.max(1, Math.ceil(keepMs));
    const written = await this.redis.attempt((client) => client.set(ANSWER_KEY_PREFIX + key, JSON.stringify(entry), 'PX', ttlMs));
    if (!written.ok) await this.local.set(key, entry, keepMs);
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
