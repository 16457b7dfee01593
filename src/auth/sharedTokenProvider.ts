import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SharedRedis } from '../redis/sharedRedis';
import { FOURTEEN_DAYS_MS, HOUR_MS, renewalTimeMs } from './tokenLifetime';

export interface SharedTokenProviderOptions {
  /** Signs in and resolves with a fresh bearer token. */
  signIn: () => Promise<string>;
  redis: SharedRedis;
  /** How long the renewal lock is held at most: longer than a sign-in can take (its timeout). */
  lockMs: number;
  /** How often a replica waiting for another one's sign-in looks for the new token. Default 25 ms. */
  pollMs?: number;
  now?: () => number;
  safetyMarginMs?: number;
  fallbackTtlMs?: number;
}

interface StoredToken {
  token: string;
  renewAtMs: number;
  /** When the sign-in that produced it started: tells a newer token from an older one. */
  issuedAtMs: number;
}

/** Keys under the configured REDIS_KEY_PREFIX. Only the token is stored, never the password. */
export const TOKEN_KEY = 'reporting:token';
const LOCK_KEY = 'reporting:token:renewing';

/** Deletes the lock only if this replica still holds it: an expired lock may already be someone else's. */
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/**
 * The reporting token shared by every replica through Redis. A replica keeps
 * the token it last saw and asks Redis only when that one is due or was
 * refused. Renewal is single-flight in the process (one promise) and across
 * replicas (a short `SET NX PX` lock): the lock holder signs in and stores the
 * token with its renewal time; the others wait for that token instead of
 * signing in themselves. When Redis cannot answer, the replica signs in for
 * itself, as a single replica would.
 */
export class SharedTokenProvider {
  private readonly signIn: () => Promise<string>;
  private readonly redis: SharedRedis;
  private readonly lockMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly safetyMarginMs: number;
  private readonly fallbackTtlMs: number;
  private readonly owner = randomUUID();
  private current: StoredToken | undefined;
  private pending: Promise<string> | undefined;

  constructor(options: SharedTokenProviderOptions) {
    this.signIn = options.signIn;
    this.redis = options.redis;
    this.lockMs = options.lockMs;
    this.pollMs = options.pollMs ?? 25;
    this.now = options.now ?? Date.now;
    this.safetyMarginMs = options.safetyMarginMs ?? HOUR_MS;
    this.fallbackTtlMs = options.fallbackTtlMs ?? FOURTEEN_DAYS_MS;
    // A Redis that restarted empty learns the token back instead of costing a sign-in.
    this.redis.onRecovered(() => void this.republish());
  }

  getToken(): Promise<string> {
    if (this.current !== undefined && this.now() < this.current.renewAtMs) return Promise.resolve(this.current.token);
    return this.refresh(undefined);
  }

  /** After the upstream refused `rejectedToken`: the first replica to ask signs in, everyone else gets its token. */
  renew(rejectedToken: string): Promise<string> {
    if (this.pending !== undefined) return this.pending;
    if (this.current !== undefined && this.current.token !== rejectedToken) return this.getToken();
    // Only a token signed in after the refused one can replace it: Redis may still hold an older one.
    const notBeforeMs = this.current?.issuedAtMs ?? Number.NEGATIVE_INFINITY;
    this.current = undefined;
    return this.refresh(rejectedToken, notBeforeMs);
  }

  private refresh(rejectedToken: string | undefined, notBeforeMs = Number.NEGATIVE_INFINITY): Promise<string> {
    this.pending ??= this.obtain(rejectedToken, notBeforeMs).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Reads the shared token; if it is unusable, takes the lock and signs in, or waits for whoever holds it. */
  private async obtain(rejectedToken: string | undefined, notBeforeMs: number): Promise<string> {
    // Past this, the lock holder has had its whole lock time and produced nothing: stop waiting on it.
    const giveUpAtMs = this.now() + 2 * this.lockMs;
    while (this.now() < giveUpAtMs) {
      const stored = await this.redis.attempt((client) => client.get(TOKEN_KEY));
      if (!stored.ok) return this.signInWithoutLock();
      const shared = parseStoredToken(stored.value);
      const usable = shared !== undefined && shared.token !== rejectedToken && shared.issuedAtMs > notBeforeMs;
      if (usable && this.now() < shared.renewAtMs) {
        this.current = shared;
        return shared.token;
      }
      const lock = await this.redis.attempt((client) => client.set(LOCK_KEY, this.owner, 'PX', this.lockMs, 'NX'));
      if (!lock.ok) return this.signInWithoutLock();
      if (lock.value === 'OK') return this.signInAndShare();
      await delay(this.pollMs);
    }
    return this.signInWithoutLock();
  }

  /** Redis failed us mid-way: sign in like a lone replica, then offer the token to the others (best effort). */
  private async signInWithoutLock(): Promise<string> {
    const token = await this.signInLocally();
    await this.publish('always');
    return token;
  }

  private async signInAndShare(): Promise<string> {
    try {
      const token = await this.signInLocally();
      await this.publish('always');
      return token;
    } finally {
      await this.redis.attempt((client) => client.eval(RELEASE_LOCK, 1, LOCK_KEY, this.owner));
    }
  }

  private async signInLocally(): Promise<string> {
    const startedAtMs = this.now();
    const token = await this.signIn();
    this.current = {
      token,
      renewAtMs: renewalTimeMs(token, startedAtMs, { safetyMarginMs: this.safetyMarginMs, fallbackTtlMs: this.fallbackTtlMs }),
      issuedAtMs: startedAtMs,
    };
    return token;
  }

  private republish(): Promise<void> {
    return this.publish('if-absent');
  }

  /** The key lives until the token is due, so an expired token is never read back from Redis. */
  private async publish(when: 'always' | 'if-absent'): Promise<void> {
    const current = this.current;
    if (current === undefined) return;
    const ttlMs = Math.floor(current.renewAtMs - this.now());
    if (ttlMs <= 0) return;
    const value = JSON.stringify(current);
    await this.redis.attempt((client) =>
      when === 'always' ? client.set(TOKEN_KEY, value, 'PX', ttlMs) : client.set(TOKEN_KEY, value, 'PX', ttlMs, 'NX'),
    );
  }
}

function parseStoredToken(raw: string | null): StoredToken | undefined {
  if (raw === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { token, renewAtMs, issuedAtMs } = parsed as Record<string, unknown>;
    if (typeof token !== 'string' || token === '' || typeof renewAtMs !== 'number' || typeof issuedAtMs !== 'number') return undefined;
    return { token, renewAtMs, issuedAtMs };
  } catch {
    return undefined;
  }
}
