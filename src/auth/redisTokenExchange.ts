import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SharedRedis } from '../upstream/stores/redis/sharedRedis';
import { parseSignInFailure, type SignInFailure } from './signInBackoff';
import type { IssuedToken, SignInOutcome, TokenDemand, TokenExchange } from './tokenExchange';

/** Keys under the configured REDIS_KEY_PREFIX. Only the token and a failure's details are stored, never the password. */
export const TOKEN_KEY = 'reporting:token';
const SIGNIN_FAILURE_KEY = 'reporting:token:signin-failure';
const LOCK_KEY = 'reporting:token:renewing';

/** Deletes the lock only if this replica still holds it: an expired lock may already be someone else's. */
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

export interface RedisTokenExchangeOptions {
  redis: SharedRedis;
  /** How long the renewal lock is held at most: longer than a sign-in can take (its timeout). */
  lockMs: number;
  /** How often a replica waiting for another one's sign-in looks for the new token. Default 25 ms. */
  pollMs?: number;
  now: () => number;
}

type Seen = SignInOutcome | 'nothing' | 'redis-failed';

/**
 * The token (and a sign-in failure's backoff) shared by every replica through
 * Redis. A replica that needs a token reads the shared one; if it is unusable
 * it takes a short `SET NX PX` lock, reads again under the lock, and only then
 * signs in and publishes the outcome; the others wait for that outcome instead
 * of signing in themselves. The second read closes the race where a replica
 * read the old token just before the previous holder published the new one
 * and released the lock (it then took the free lock and signed in again).
 * When Redis cannot answer, the replica signs in for itself, as a single
 * replica would, and offers the token to the others afterwards.
 */
export class RedisTokenExchange implements TokenExchange {
  private readonly redis: SharedRedis;
  private readonly lockMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly owner = randomUUID();
  /** The last token this replica used, offered back to a Redis that restarted empty. */
  private latest: IssuedToken | undefined;

  constructor(options: RedisTokenExchangeOptions) {
    this.redis = options.redis;
    this.lockMs = options.lockMs;
    this.pollMs = options.pollMs ?? 25;
    this.now = options.now;
    // A Redis that restarted empty learns the token back instead of costing a sign-in.
    this.redis.onRecovered(() => void this.publishToken('if-absent'));
  }

  async obtain(demand: TokenDemand, signIn: () => Promise<SignInOutcome>): Promise<SignInOutcome> {
    // Past this, the lock holder has had its whole lock time and produced nothing: stop waiting on it.
    const giveUpAtMs = this.now() + 2 * this.lockMs;
    while (this.now() < giveUpAtMs) {
      const seen = await this.read(demand);
      if (seen === 'redis-failed') return this.signInAlone(signIn);
      if (seen !== 'nothing') return this.remember(seen);
      const lock = await this.redis.attempt((client) => client.set(LOCK_KEY, this.owner, 'PX', this.lockMs, 'NX'));
      if (!lock.ok) return this.signInAlone(signIn);
      if (lock.value === 'OK') return this.signInHoldingLock(demand, signIn);
      await delay(this.pollMs);
    }
    return this.signInAlone(signIn);
  }

  private async signInHoldingLock(demand: TokenDemand, signIn: () => Promise<SignInOutcome>): Promise<SignInOutcome> {
    try {
      const seen = await this.read(demand);
      if (seen !== 'nothing' && seen !== 'redis-failed') return this.remember(seen);
      return await this.publish(await signIn());
    } finally {
      await this.redis.attempt((client) => client.eval(RELEASE_LOCK, 1, LOCK_KEY, this.owner));
    }
  }

  /** Redis failed us mid-way: sign in like a lone replica, then offer the outcome to the others (best effort). */
  private async signInAlone(signIn: () => Promise<SignInOutcome>): Promise<SignInOutcome> {
    return this.publish(await signIn());
  }

  /** A usable shared token, or a failure still in its backoff; `nothing` when this replica must sign in. */
  private async read(demand: TokenDemand): Promise<Seen> {
    const stored = await this.redis.attempt((client) => client.mget(TOKEN_KEY, SIGNIN_FAILURE_KEY));
    if (!stored.ok) return 'redis-failed';
    const [rawToken, rawFailure] = stored.value;
    const nowMs = this.now();
    const token = parseStoredToken(rawToken ?? null);
    if (token !== undefined && token.token !== demand.rejectedToken && token.issuedAtMs >= demand.notBeforeMs && nowMs < token.renewAtMs) {
      return { token };
    }
    const failure = parseJson(rawFailure ?? null, parseSignInFailure);
    if (failure !== undefined && nowMs < failure.untilMs) return { failure };
    return 'nothing';
  }

  private remember(outcome: SignInOutcome): SignInOutcome {
    if ('token' in outcome) this.latest = outcome.token;
    return outcome;
  }

  private async publish(outcome: SignInOutcome): Promise<SignInOutcome> {
    this.remember(outcome);
    if ('token' in outcome) {
      await this.publishToken('always');
      // A success ends the backoff for every replica.
      await this.redis.attempt((client) => client.del(SIGNIN_FAILURE_KEY));
    } else {
      await this.publishFailure(outcome.failure);
    }
    return outcome;
  }

  /** The key lives until the token is due, so an expired token is never read back from Redis. */
  private async publishToken(when: 'always' | 'if-absent'): Promise<void> {
    const latest = this.latest;
    if (latest === undefined) return;
    const ttlMs = Math.floor(latest.renewAtMs - this.now());
    if (ttlMs <= 0) return;
    const value = JSON.stringify(latest);
    await this.redis.attempt((client) =>
      when === 'always' ? client.set(TOKEN_KEY, value, 'PX', ttlMs) : client.set(TOKEN_KEY, value, 'PX', ttlMs, 'NX'),
    );
  }

  private async publishFailure(failure: SignInFailure): Promise<void> {
    const ttlMs = Math.floor(failure.untilMs - this.now());
    if (ttlMs <= 0) return;
    await this.redis.attempt((client) => client.set(SIGNIN_FAILURE_KEY, JSON.stringify(failure), 'PX', ttlMs));
  }
}

function parseStoredToken(raw: string | null): IssuedToken | undefined {
  return parseJson(raw, (parsed) => {
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { token, renewAtMs, issuedAtMs } = parsed as Record<string, unknown>;
    if (typeof token !== 'string' || token === '' || typeof renewAtMs !== 'number' || typeof issuedAtMs !== 'number') return undefined;
    return { token, renewAtMs, issuedAtMs };
  });
}

function parseJson<T>(raw: string | null, read: (parsed: unknown) => T | undefined): T | undefined {
  if (raw === null) return undefined;
  try {
    return read(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
