import { randomUUID } from 'node:crypto';
import type { RedisClient } from './client';

/** Keys under the configured REDIS_KEY_PREFIX: a sorted set of replica ids scored by when each was last seen. No TTL: never an eviction candidate under volatile-* policies. */
const ROSTER_KEY = 'replicas';
/** How often a replica announces itself. */
const HEARTBEAT_MS = 5_000;
/** A replica not seen for this long is gone (three missed heartbeats). */
const GONE_AFTER_MS = 3 * HEARTBEAT_MS;

/**
 * Another replica's clock may run ahead of ours by this much (one heartbeat).
 * A member further ahead was not written by a live replica's clock (a hand
 * edit, a poisoned roster, a clock far off): kept, it would never age out and
 * would shrink every replica's share of the budget for good.
 */
const MAX_AHEAD_MS = HEARTBEAT_MS;

/**
 * Announces this replica and counts the live ones in one step: members not
 * seen for GONE_AFTER_MS and members from the future are dropped; a roster key
 * of the wrong type (poisoned) is replaced. Also returns this replica's rank
 * among the live ids in byte order (0-based): the same order for every
 * replica, so each knows its turn while the budget cannot be shared.
 * ARGV: now, id, oldest live, latest live.
 */
const BEAT = `
if redis.call('TYPE', KEYS[1])['ok'] ~= 'zset' then redis.call('DEL', KEYS[1]) end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. ARGV[4], '+inf')
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(ids)
local rank = 0
for index, id in ipairs(ids) do if id == ARGV[2] then rank = index - 1 end end
return {#ids, rank}
`;

/** This replica's place among the live replicas at the last heartbeat Redis answered. */
export interface Seat {
  replicas: number;
  /** 0 to replicas - 1, a different one for each live replica. */
  rank: number;
}

type Send = <T>(command: (client: RedisClient) => Promise<T>) => Promise<{ ok: true; value: T } | { ok: false }>;

/**
 * Who else spends the budget: each replica writes a heartbeat into a shared
 * sorted set and reads how many replicas were seen lately. While the budget
 * cannot be shared (Redis away, or refusing writes when full), a replica
 * spends `rate / lastSeen()` of it, never the whole rate (redisRateStore.ts).
 */
export class ReplicaRoster {
  readonly id = randomUUID();
  private seat: Seat = { replicas: 1, rank: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: Send,
    private readonly now: () => number,
  ) {}

  /** Replicas alive at the last heartbeat that Redis answered, this one included (1 before any). */
  lastSeen(): number {
    return this.seat.replicas;
  }

  /** The replicas alive and this one's rank among them, at the last heartbeat Redis answered ({1, 0} before any). */
  lastSeat(): Seat {
    return this.seat;
  }

  async beat(): Promise<void> {
    const nowMs = this.now();
    const counted = await this.send((client) =>
      client.eval(BEAT, 1, ROSTER_KEY, String(nowMs), this.id, String(nowMs - GONE_AFTER_MS), String(nowMs + MAX_AHEAD_MS)),
    );
    if (!counted.ok || !Array.isArray(counted.value)) return;
    const [replicas, rank] = counted.value as unknown[];
    if (typeof replicas === 'number' && typeof rank === 'number' && replicas >= 1 && rank >= 0 && rank < replicas)
      this.seat = { replicas, rank };
  }

  /** Beats now and every HEARTBEAT_MS until `stop` (the timer never holds the process open). */
  start(): void {
    if (this.timer !== undefined) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
