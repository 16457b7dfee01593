import { setTimeout as delay } from 'node:timers/promises';
import type { SignInBackoffOptions, SignInFailure } from '../../auth/signInBackoff';
import type { IssuedToken, SignInOutcome, TokenDemand, TokenExchange } from '../../auth/tokenExchange';
import { parseSignInFailure, withoutUpstreamWords } from '../../upstream/datasources/signInErrors';
import { takeLease, type Lease } from '../connection/lease';
import { fieldsOf, readValue } from '../connection/readValue';
import type { SharedRedis } from '../connection/sharedRedis';
import { MAX_TTL_MS, clampTime, ttlMs } from '../connection/ttl';

/** Keys under the configured REDIS_KEY_PREFIX. Only the token and a failure's details are stored, never the password. */
export const TOKEN_KEY = 'reporting:token';
const SIGNIN_FAILURE_KEY = 'reporting:token:signin-failure';
const LOCK_KEY = 'reporting:token:renewing';

/** How long the renewal lock outlives a replica that stopped renewing it (crashed, cut off mid sign-in). */
const LOCK_LEASE_MS = 2_000;

export interface RedisTokenExchangeOptions {
  redis: SharedRedis;
  /** How long the renewal lock is held at most: longer than a sign-in can take (its timeout). Its holder renews a shorter lease meanwhile. */
  lockMs: number;
  /** How often a replica waiting for another one's sign-in looks for the new token (REDIS_STATE_DEFAULTS.tokenExchange). */
  pollMs: number;
  /** The longest sign-in backoff this deployment sets: a shared failure read back never lasts longer than this from now. */
  maxBackoffMs: number;
  /** The one clock of the token's times and of every TTL written for them. */
  now: () => number;
}

/** The longest sign-in backoff a deployment's settings give (RedisTokenExchangeOptions.maxBackoffMs). */
export function longestBackoffMs(backoff: SignInBackoffOptions): number {
  return Math.max(backoff.refusedBaseMs, backoff.refusedMaxMs, backoff.unavailableBaseMs, backoff.unavailableMaxMs);
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
  private readonly maxBackoffMs: number;
  /** The last token this replica used, offered back to a Redis that restarted empty. */
  private latest: IssuedToken | undefined;

  constructor(options: RedisTokenExchangeOptions) {
    this.redis = options.redis;
    this.lockMs = options.lockMs;
    this.pollMs = options.pollMs;
    this.now = options.now;
    this.maxBackoffMs = options.maxBackoffMs;
    // A Redis that restarted empty learns the token back instead of costing a sign-in.
    this.redis.onRecovered(() => void this.publishToken('if-absent'));
  }

  async obtain(demand: TokenDemand, signIn: () => Promise<SignInOutcome>): Promise<SignInOutcome> {
    // Past this, the lock holder has had its whole lock time and produced nothing: stop waiting on it.
    const giveUpAtMs = this.now() + 2 * this.lockMs;
    while (this.now() < giveUpAtMs) {
      const seen = await this.read(demand);
      if (seen === 'redis-failed') return this.signInAlone(demand, signIn);
      if (seen !== 'nothing') return this.remember(seen);
      const lock = await takeLease(this.redis, LOCK_KEY, { leaseMs: Math.min(LOCK_LEASE_MS, this.lockMs), holdAtMostMs: this.lockMs });
      if (lock.kind === 'away') return this.signInAlone(demand, signIn);
      if (lock.kind === 'taken') return this.signInHoldingLock(demand, signIn, lock.lease);
      await delay(this.pollMs);
    }
    return this.signInAlone(demand, signIn);
  }

  share(failure: SignInFailure): Promise<boolean> {
    return this.publishFailure(failure);
  }

  async sharedFailure(): Promise<SignInFailure | 'none' | 'away'> {
    const stored = await this.redis.attempt((client) => client.get(SIGNIN_FAILURE_KEY));
    // Refused (a key of another type): as good as absent, as in read().
    if (!stored.ok) return stored.failure === 'away' ? 'away' : 'none';
    const nowMs = this.now();
    const failure = readValue(this.redis, SIGNIN_FAILURE_KEY, stored.value, (parsed) => this.validateFailure(parsed, nowMs));
    return failure !== undefined && nowMs < failure.untilMs ? failure : 'none';
  }

  private async signInHoldingLock(demand: TokenDemand, signIn: () => Promise<SignInOutcome>, lock: Lease): Promise<SignInOutcome> {
    try {
      const seen = await this.read(demand);
      if (seen === 'redis-failed') return await this.signInAlone(demand, signIn);
      if (seen !== 'nothing') return this.remember(seen);
      return await this.publish(await signIn());
    } finally {
      await lock.release();
    }
  }

  /**
   * Redis failed us mid-way: sign in like a lone replica, then offer the
   * outcome to the others (best effort). A backoff this replica is in stands
   * while Redis cannot say it was lifted: no sign-in before it ends.
   */
  private async signInAlone(demand: TokenDemand, signIn: () => Promise<SignInOutcome>): Promise<SignInOutcome> {
    // Only a shared failure is looked up again (TokenProvider): as far as this replica can tell, it still is.
    if (demand.backingOff !== undefined) return { failure: demand.backingOff, shared: true };
    return this.publish(await signIn());
  }

  /** A usable shared token, or a failure still in its backoff; `nothing` when this replica must sign in. */
  private async read(demand: TokenDemand): Promise<Seen> {
    const stored = await this.redis.attempt((client) => client.mget(TOKEN_KEY, SIGNIN_FAILURE_KEY));
    // Refused (a poisoned key of another type): as good as absent, and the writes that follow repair it.
    if (!stored.ok) return stored.failure === 'away' ? 'redis-failed' : 'nothing';
    const [rawToken, rawFailure] = stored.value;
    const nowMs = this.now();
    const token = readValue(this.redis, TOKEN_KEY, rawToken, (parsed) => validateToken(parsed, nowMs));
    if (token !== undefined && token.token !== demand.rejectedToken && token.issuedAtMs >= demand.notBeforeMs && nowMs < token.renewAtMs) {
      return { token };
    }
    const failure = readValue(this.redis, SIGNIN_FAILURE_KEY, rawFailure, (parsed) => this.validateFailure(parsed, nowMs));
    if (failure !== undefined && nowMs < failure.untilMs) return { failure, shared: true };
    return 'nothing';
  }

  /** Bounded by this deployment's longest backoff, and stripped of the upstream's words: nothing read from Redis reaches a client's message. */
  private validateFailure(parsed: unknown, nowMs: number): SignInFailure | undefined {
    const failure = parseSignInFailure(parsed);
    if (failure === undefined) return undefined;
    const untilMs = clampTime(failure.untilMs, nowMs, this.maxBackoffMs);
    if (untilMs === undefined || !Number.isFinite(failure.streak) || failure.streak < 1) return undefined;
    return { ...failure, untilMs, streak: Math.min(failure.streak, 64), error: withoutUpstreamWords(failure.error) };
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
      return outcome;
    }
    return { failure: outcome.failure, shared: await this.publishFailure(outcome.failure) };
  }

  /** The key lives until the token is due (at most MAX_TTL_MS), so an expired token is never read back from Redis. */
  private async publishToken(when: 'always' | 'if-absent'): Promise<void> {
    const latest = this.latest;
    if (latest === undefined) return;
    const keepMs = ttlMs(latest.renewAtMs - this.now());
    if (keepMs === undefined) return;
    const value = JSON.stringify(latest);
    await this.redis.attempt((client) =>
      when === 'always' ? client.set(TOKEN_KEY, value, 'PX', keepMs) : client.set(TOKEN_KEY, value, 'PX', keepMs, 'NX'),
    );
  }

  /** Whether Redis now holds the failure: then it lasts as long as the key, for this replica too. */
  private async publishFailure(failure: SignInFailure): Promise<boolean> {
    const keepMs = ttlMs(Math.min(failure.untilMs - this.now(), this.maxBackoffMs));
    if (keepMs === undefined) return false;
    const shared = { ...failure, error: withoutUpstreamWords(failure.error) };
    const stored = await this.redis.attempt((client) => client.set(SIGNIN_FAILURE_KEY, JSON.stringify(shared), 'PX', keepMs));
    return stored.ok;
  }
}

/** A token as publishToken writes it, its times finite and bounded (a far renewal is read as MAX_TTL_MS from now). */
function validateToken(parsed: unknown, nowMs: number): IssuedToken | undefined {
  const fields = fieldsOf(parsed);
  if (fields === undefined) return undefined;
  const { token } = fields;
  const renewAtMs = clampTime(fields.renewAtMs, nowMs, MAX_TTL_MS);
  const issuedAtMs = clampTime(fields.issuedAtMs, nowMs, 0);
  if (typeof token !== 'string' || token === '' || renewAtMs === undefined || issuedAtMs === undefined) return undefined;
  return { token, renewAtMs, issuedAtMs };
}
