import { randomUUID } from 'node:crypto';
import type { SharedRedis } from './sharedRedis';
import { ttlMs } from './ttl';

/** Drops a lease only if it is still ours: a lapsed lease may have been taken by another replica since. */
const RELEASE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/**
 * A held key's end is bounded by the lease (ARGV[1]): one with no TTL, or
 * with more left than the lease, was not written by us (another program, an
 * older release, a hand-made key) and is set to lapse after the lease; an
 * owner of ours renews its own before then, never beyond the lease. A key of
 * another type is bounded alike.
 */
const BOUND_HELD = `
local left = redis.call('PTTL', KEYS[1])
if left == -1 or left > tonumber(ARGV[1]) then return redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0
`;
/** Extends a lease only if it is still ours. */
const RENEW_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export interface LeaseOptions {
  /** How long the key lives unless its owner renews it: how long a waiter can wait on an owner that is gone. */
  leaseMs: number;
  /** The owner stops renewing after this even if it never releases (a lost promise): every claim has an end. */
  holdAtMostMs: number;
}

/** `taken`: this replica owns the key until `release`. `held`: someone else owns it. `away`: Redis could not say (nothing is left behind). */
export type LeaseAttempt = { kind: 'taken'; lease: Lease } | { kind: 'held' } | { kind: 'away' };

/**
 * An owner-tokened key in Redis (a fill marker, the token renewal lock): set
 * with `SET NX PX` under a token only this owner knows, renewed while the
 * owner works, and released by that owner only. A waiter judges the owner
 * alive by the key itself: an owner that is gone stops renewing, and the key
 * lapses within `leaseMs`. A held key that would outlive the lease (no TTL,
 * or more than the lease left: not written by us) is bounded by it too.
 *
 * A `SET` that timed out locally may still be applied by Redis later; its
 * release-if-owner is therefore sent right behind it on the same connection
 * (Redis applies them in order), and kept for the reconnection if it cannot
 * be sent: a timed-out or skipped write never leaves a key behind.
 */
export async function takeLease(redis: SharedRedis, key: string, options: LeaseOptions): Promise<LeaseAttempt> {
  const token = randomUUID();
  const leaseMs = ttlMs(options.leaseMs) ?? 1;
  const set = await redis.attempt((client) => client.set(key, token, 'PX', leaseMs, 'NX'));
  if (set.ok && set.value === 'OK') return { kind: 'taken', lease: new Lease(redis, key, token, leaseMs, options.holdAtMostMs) };
  if (set.ok) {
    // A refused or lost bound leaves the key as it was: the waiter still waits at most its own fill wait.
    await redis.attempt((client) => client.eval(BOUND_HELD, 1, key, String(leaseMs)));
    return { kind: 'held' };
  }
  if (set.failure === 'away') void releaseIfOwner(redis, key, token);
  return { kind: 'away' };
}

export class Lease {
  private readonly renewal: NodeJS.Timeout;
  private readonly endOfHold: NodeJS.Timeout;
  private released = false;

  constructor(
    private readonly redis: SharedRedis,
    readonly key: string,
    private readonly token: string,
    leaseMs: number,
    holdAtMostMs: number,
  ) {
    this.renewal = setInterval(() => void this.renew(leaseMs), Math.max(1, Math.floor(leaseMs / 3)));
    this.renewal.unref();
    this.endOfHold = setTimeout(() => this.stopRenewing(), holdAtMostMs);
    this.endOfHold.unref();
  }

  /** Ends the lease: the key is deleted if it is still ours, now or (Redis away) at the reconnection. */
  async release(): Promise<void> {
    this.stopRenewing();
    const released = await this.redis.attempt((client) => client.eval(RELEASE_IF_OWNER, 1, this.key, this.token));
    // Not awaited: the caller's operation costs at most one timeout, the release happens when Redis can take it.
    if (!released.ok && released.failure === 'away') void releaseIfOwner(this.redis, this.key, this.token);
  }

  /** The key is already gone with something else (an answer written with its DEL): only stop renewing. */
  forget(): void {
    this.stopRenewing();
  }

  private stopRenewing(): void {
    this.released = true;
    clearInterval(this.renewal);
    clearTimeout(this.endOfHold);
  }

  private async renew(leaseMs: number): Promise<void> {
    if (this.released) return;
    const renewed = await this.redis.attempt((client) => client.eval(RENEW_IF_OWNER, 1, this.key, this.token, String(leaseMs)));
    // Lost (lapsed and taken, or deleted): nothing of ours left to keep alive.
    if (renewed.ok && renewed.value === 0) this.stopRenewing();
  }
}

function releaseIfOwner(redis: SharedRedis, key: string, token: string): Promise<void> {
  return redis.eventually(`release:${key}:${token}`, (client) => client.eval(RELEASE_IF_OWNER, 1, key, token));
}
