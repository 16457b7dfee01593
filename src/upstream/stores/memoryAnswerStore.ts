import { LRUCache } from 'lru-cache';
import type { Fetched } from '../../kernel/fetched';
import type { AnswerStore, Claim } from './answerStore';

export interface MemoryAnswerStoreOptions {
  /** Most entries kept (UPSTREAM_PATH_DEFAULTS.answerStore in src/config/upstreamPath.ts). */
  maxEntries: number;
  /** Most bytes kept (approximated as JSON characters × 2, UTF-16). */
  maxBytes: number;
  /** Clock of the entries' time to live (injected by tests). */
  now?: () => number;
}

/**
 * The default AnswerStore: this process's memory, bounded both by entries and
 * by bytes so that a few huge dashboards or many small answers cannot grow it
 * without limit; the least recently used entries go first. It takes no claims:
 * within one process the coalescing stage already leaves one filler per key,
 * so `claim` is always `unclaimed`. Claims are for replicas, in Redis; while
 * Redis is away its store falls back to this one, and so to no claims, which
 * one process does not need.
 */
export class MemoryAnswerStore implements AnswerStore {
  private readonly cache: LRUCache<string, Fetched<unknown>>;

  constructor(options: MemoryAnswerStoreOptions) {
    this.cache = new LRUCache<string, Fetched<unknown>>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => Math.max(1, (key.length + JSON.stringify(entry.value).length) * 2),
      // Entries over the byte bound are not kept rather than evicting everything else.
      maxEntrySize: options.maxBytes,
      // Only tests move the clock; production keeps lru-cache's own monotonic timer.
      ...(options.now === undefined ? {} : { perf: { now: options.now }, ttlResolution: 0 }),
    });
  }

  async get(key: string): Promise<Fetched<unknown> | undefined> {
    return this.cache.get(key);
  }

  async claim(_key: string): Promise<Claim> {
    return UNCLAIMED;
  }

  async set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void> {
    if (keepMs > 0) this.cache.set(key, entry, { ttl: keepMs });
  }

  async fail(_key: string): Promise<void> {}

  /** Entries currently kept (for tests and diagnostics). */
  get size(): number {
    return this.cache.size;
  }
}

const UNCLAIMED: Claim = { kind: 'unclaimed' };
