import { InMemoryLRUCache, type KeyValueCache, type KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { KeyvAdapter } from '@apollo/utils.keyvadapter';
import Keyv from 'keyv';
import { readValue } from './readValue';
import { ttlMs as clampTtl } from './ttl';
import type { SharedRedis } from './sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX (Apollo adds its own `apq:` inside). */
const APOLLO_KEY_PREFIX = 'apollo:';

/** REDIS_STATE_DEFAULTS.apolloCache (src/config/redis.ts). */
export interface ApolloCacheOptions {
  /** How long an entry Apollo sets without a TTL (a persisted query) is kept. */
  defaultTtlMs: number;
  /** The most the in-process LRU holds while Redis is away (InMemoryLRUCache's `maxSize`). */
  localMaxSize: number;
}

/**
 * Apollo Server's cache (persisted queries) in Redis, through the kept
 * adapter chain `KeyvAdapter` → `Keyv` → a store on our one ioredis
 * connection: a query registered on one replica is found on all. While Redis
 * is away, reads and writes go to an in-process LRU, so a client is at worst
 * asked to send its query again (the APQ protocol's normal miss), never failed.
 */
export function createApolloCache(redis: SharedRedis, options: ApolloCacheOptions): KeyValueCache<string> {
  const store = new RedisKeyvStore(redis, options.defaultTtlMs);
  const keyv = new Keyv<string>({ store, namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
  return new FallbackKeyValueCache(redis, new KeyvAdapter(keyv), new InMemoryLRUCache<string>({ maxSize: options.localMaxSize }));
}

/** The minimal Keyv store contract (Map-like: values are Keyv's serialized strings, ttl in ms). Errors propagate to the fallback. */
class RedisKeyvStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly defaultTtlMs: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return this.checked(key, await this.redis.client.get(APOLLO_KEY_PREFIX + key));
  }

  /** Keyv swallows errors of one-by-one reads in a batch; a batch read of its own lets them reach the fallback. */
  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return [];
    const values = await this.redis.client.mget(keys.map((key) => APOLLO_KEY_PREFIX + key));
    return values.map((value, index) => this.checked(keys[index] ?? '', value));
  }

  /** Keyv's own wrapper must be JSON: anything else is a miss (and deleted) here, never a parse error taken for Redis being away. */
  private checked(key: string, raw: string | null): string | undefined {
    return readValue(this.redis, APOLLO_KEY_PREFIX + key, raw, () => raw ?? undefined);
  }

  /** Always with a TTL (the default, a day, when Apollo gives none): under `noeviction` every key must end by itself (docs/shared-state.md). */
  async set(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const keepMs = clampTtl(ttlMs !== undefined && ttlMs > 0 ? Math.ceil(ttlMs) : this.defaultTtlMs) ?? this.defaultTtlMs;
    await this.redis.client.set(APOLLO_KEY_PREFIX + key, value, 'PX', keepMs);
    return true;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.redis.client.del(APOLLO_KEY_PREFIX + key)) > 0;
  }

  /** Never clears the shared Redis: other replicas and deployments use it too. */
  async clear(): Promise<void> {}

  on(): this {
    return this;
  }
}

/** Shared while Redis answers, in process while it does not; every call goes through SharedRedis's gate. */
class FallbackKeyValueCache implements KeyValueCache<string> {
  constructor(
    private readonly redis: SharedRedis,
    private readonly shared: KeyValueCache<string>,
    private readonly local: KeyValueCache<string>,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const read = await this.redis.attempt(() => this.shared.get(key));
    return read.ok ? read.value : this.local.get(key);
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    const written = await this.redis.attempt(() => this.shared.set(key, value, options));
    if (!written.ok) await this.local.set(key, value, options);
  }

  async delete(key: string): Promise<boolean | void> {
    await this.redis.attempt(() => this.shared.delete(key));
    return this.local.delete(key);
  }
}
