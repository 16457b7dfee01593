import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';

/** What `@apollo/server-plugin-response-cache` stores per response (its JSON value). */
interface StoredResponse {
  data: unknown;
  cachePolicy: { maxAge: number; scope?: string };
  /** Epoch ms when the response was stored. */
  cacheTime: number;
}

function isStoredResponse(value: unknown): value is StoredResponse {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<StoredResponse>;
  return typeof candidate.cacheTime === 'number' && typeof candidate.cachePolicy?.maxAge === 'number';
}

const NOT_JSON = Symbol('not JSON');

function parseStored(serialized: string): unknown {
  try {
    return JSON.parse(serialized) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * The response cache's store, with the stored response's max-age counting
 * down. Apollo's plugin serves a hit with the max-age it was stored with and
 * an `Age` header; a router folding subgraph `cache-control` headers ignores
 * `Age`, so it would keep the answer up to a full TTL longer than the
 * subgraph itself does. Read back here, a response carries the seconds it has
 * left (rounded up, as the cache hints are: src/graphql/responseCache/cacheHints.ts) and
 * counts as stored now (`Age: 0`), so its header says exactly what an
 * executed operation's would. One left with no seconds is a miss.
 */
export class CountdownCache implements KeyValueCache<string> {
  constructor(
    private readonly store: KeyValueCache<string>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const serialized = await this.store.get(key);
    if (serialized === undefined) return undefined;
    const stored = parseStored(serialized);
    // Not JSON (a truncated write, a hand edit): a miss for every replica, and deleted so the next response replaces it.
    if (stored === NOT_JSON) {
      await this.store.delete(key);
      return undefined;
    }
    // Not the plugin's shape (a newer plugin version): served as stored, Age header and all.
    if (!isStoredResponse(stored)) return serialized;
    const now = this.now();
    const ageSeconds = Math.max(0, now - stored.cacheTime) / 1000;
    const maxAge = Math.ceil(stored.cachePolicy.maxAge - ageSeconds);
    if (maxAge <= 0) return undefined;
    return JSON.stringify({ ...stored, cachePolicy: { ...stored.cachePolicy, maxAge }, cacheTime: now });
  }

  set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    return this.store.set(key, value, options);
  }

  delete(key: string): Promise<boolean | void> {
    return this.store.delete(key);
  }
}
