import { LRUCache } from 'lru-cache';
import type { Fetched } from '../datasources/fetched';
import type { AnswerStore, Claim } from './answerStore';

export interface MemoryAnswerStoreOptions {
  /** Most entries kept. Default 10,000. */
  maxEntries?: number;
  /** Most bytes kept (approximated as JSON characters × 2, UTF-16). Default 64 MiB. */
  maxBytes?: number;
  /** How long a claim lasts, and so how long `claim` waits for another filler. 0 (the default) turns claims off. */
  fillWaitMs?: number;
  /** Clock of the entries' time to live (injected by tests). */
  now?: () => number;
  /** Told when a claim starts waiting for another filler (tests await it instead of sleeping). */
  onWait?: (key: string) => void;
}

const DEFAULT_MAX_ENTRIES = 10_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** A held claim: its waiters await `released`, which settles on set, fail or lapse. */
interface HeldClaim {
  released: Promise<void>;
  release(): void;
}

/**
 * The default AnswerStore: this process's memory, bounded both by entries and
 * by bytes so that a few huge dashboards or many small answers cannot grow it
 * without limit; the least recently used entries go first. Claims behave as
 * the Redis store's do (see AnswerStore); within one process the call path's
 * coalescing already leaves one filler per key, so they are rarely contended.
 */
export class MemoryAnswerStore implements AnswerStore {
  private readonly cache: LRUCache<string, Fetched<unknown>>;
  private readonly claims = new Map<string, HeldClaim>();
  private readonly fillWaitMs: number;
  private readonly onWait: (key: string) => void;

  constructor(options: MemoryAnswerStoreOptions = {}) {
    this.fillWaitMs = options.fillWaitMs ?? 0;
    this.onWait = options.onWait ?? (() => {});
    this.cache = new LRUCache<string, Fetched<unknown>>({
      max: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      sizeCalculation: (entry, key) => Math.max(1, (key.length + JSON.stringify(entry.value).length) * 2),
      // Entries over the byte bound are not kept rather than evicting everything else.
      maxEntrySize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      // Only tests move the clock; production keeps lru-cache's own monotonic timer.
      ...(options.now === undefined ? {} : { perf: { now: options.now }, ttlResolution: 0 }),
    });
  }

  async get(key: string): Promise<Fetched<unknown> | undefined> {
    return this.cache.get(key);
  }

  async claim(key: string): Promise<Claim> {
    if (this.fillWaitMs <= 0) return { kind: 'unclaimed' };
    const held = this.claims.get(key);
    if (held === undefined) {
      // Someone may have stored the answer between the caller's miss and this claim.
      const entry = this.cache.get(key);
      if (entry !== undefined) return { kind: 'filled', entry };
      this.hold(key);
      return { kind: 'claimed' };
    }
    this.onWait(key);
    await held.released;
    const entry = this.cache.get(key);
    return entry === undefined ? { kind: 'unclaimed' } : { kind: 'filled', entry };
  }

  async set(key: string, entry: Fetched<unknown>, keepMs: number): Promise<void> {
    if (keepMs > 0) this.cache.set(key, entry, { ttl: keepMs });
    this.claims.get(key)?.release();
  }

  async fail(key: string): Promise<void> {
    this.claims.get(key)?.release();
  }

  /** Entries currently kept (for tests and diagnostics). */
  get size(): number {
    return this.cache.size;
  }

  private hold(key: string): void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // A filler that never reports back (a bug, a lost promise) holds the key for fillWaitMs at most.
    const lapse = setTimeout(() => claim.release(), this.fillWaitMs);
    lapse.unref();
    const claim: HeldClaim = {
      released,
      release: () => {
        clearTimeout(lapse);
        if (this.claims.get(key) === claim) this.claims.delete(key);
        release();
      },
    };
    this.claims.set(key, claim);
  }
}
