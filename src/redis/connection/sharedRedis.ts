import { ReplyError } from 'ioredis';
import type { RedisClient } from './client';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import { ReplicaRoster } from './replicaRoster';

/**
 * `shared`: state lives in Redis. `partial`: Redis answers, but refused a
 * command for lack of permission (its ACL) within the last minute, so what
 * that command shares stays in each replica. `degraded`: Redis is away or
 * slow and each replica uses its own in-process state.
 */
export type SharingMode = 'shared' | 'partial' | 'degraded';

/** How long a command refused for lack of permission keeps the mode `partial` after the last one. */
const PERMISSION_REFUSAL_MEMORY_MS = 60_000;

/** What SharedRedis logs through (a pino logger fits). */
export interface RedisLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

/**
 * `away`: Redis did not answer (down, unreachable, slower than the timeout,
 * or skipped right after such a failure). `refused`: Redis answered with an
 * error to this one command (OOM under maxmemory, WRONGTYPE, a script error):
 * Redis is there, only this command failed.
 */
export type Attempt<T> = { ok: true; value: T } | { ok: false; failure: 'away' } | { ok: false; failure: 'refused'; reason: string };

export interface SharedRedisOptions {
  client: RedisClient;
  logger: RedisLogger;
  now?: () => number;
  /** A command not answered within this is a failure (REDIS_TIMEOUT_MS). */
  timeoutMs: number;
  /** While degraded, a reminder at most once per this interval (each outage's first warning is always logged). */
  warnIntervalMs: number;
  /** After a failure, Redis is not asked again for this long (unless it reconnects), so a slow Redis costs one timeout, not one per call. */
  retryAfterMs: number;
  /** Told of each command Redis refused, with the error's code (`OOM`, `WRONGTYPE`, `ERR`…): the `subgraph_redis_refused_total` counter. */
  onRefused?: (reason: string) => void;
}

/** The one bad entry of a hash, a set or a sorted set, when the rest of the key is good. */
export type BadPart = { field: string } | { member: string } | { scoredMember: string };

/** Commands that must reach Redis eventually (releases of claims), kept while it is away; bounded so an endless outage cannot grow it. */
const MAX_PENDING = 10_000;
/** A pending command is tried at most this many times (each a reconnection apart); the key's own TTL bounds what a lost one costs. */
const MAX_TRIES = 5;

interface Pending {
  command: (client: RedisClient) => Promise<unknown>;
  tries: number;
}

/**
 * The one gate to Redis for the token, the answer cache, the budget and
 * Apollo's cache. Every command goes through `attempt`, which never rejects:
 * it reports whether Redis is away (the caller uses its local fallback) or
 * refused this one command (the caller treats it as that command's failure,
 * and the replica stays shared). Keeps the sharing mode, logs each outage
 * once at its start and once at its end, and runs the recovery listeners at
 * the end of every outage, however short.
 */
export class SharedRedis {
  readonly client: RedisClient;
  /** This replica's heartbeat and the count of replicas it last saw (the split of a budget Redis cannot share). */
  readonly roster: ReplicaRoster;
  private readonly logger: RedisLogger;
  private readonly now: () => number;
  private readonly warnIntervalMs: number;
  private readonly retryAfterMs: number;
  private readonly timeoutMs: number;
  private readonly onRefused: (reason: string) => void;
  private current: Exclude<SharingMode, 'partial'> = 'shared';
  private lastPermissionRefusalMs = Number.NEGATIVE_INFINITY;
  private skipUntilMs = 0;
  private failedAtMs = Number.NEGATIVE_INFINITY;
  private lastWarnMs = Number.NEGATIVE_INFINITY;
  private failuresSinceWarn = 0;
  private readonly lastRefusalLogMs = new Map<string, number>();
  private readonly recoveryListeners: (() => void)[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly badKeysLogged = new Set<string>();

  constructor(options: SharedRedisOptions) {
    this.client = options.client;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.warnIntervalMs = options.warnIntervalMs;
    this.retryAfterMs = options.retryAfterMs;
    this.timeoutMs = options.timeoutMs;
    this.onRefused = options.onRefused ?? (() => {});
    this.roster = new ReplicaRoster((command) => this.attempt(command), this.now);
    // Without a listener ioredis prints every connection error itself; here they count as failures.
    this.client.on('error', (error: Error) => this.recordFailure(error.message));
    this.client.on('ready', () => {
      this.skipUntilMs = 0;
      this.flushPending();
    });
  }

  mode(): SharingMode {
    if (this.current === 'shared' && this.now() - this.lastPermissionRefusalMs < PERMISSION_REFUSAL_MEMORY_MS) return 'partial';
    return this.current;
  }

  /** Called each time Redis answers again after a degraded period (every outage, however short). */
  onRecovered(listener: () => void): void {
    this.recoveryListeners.push(listener);
  }

  async attempt<T>(command: (client: RedisClient) => Promise<T>): Promise<Attempt<T>> {
    if (this.client.status !== 'ready') {
      this.recordFailure(`connection ${this.client.status}`);
      return { ok: false, failure: 'away' };
    }
    // Right after a failure, Redis is left alone for a moment: a slow Redis costs one timeout, not one per call.
    if (this.now() < this.skipUntilMs) return { ok: false, failure: 'away' };
    const startedAtMs = this.now();
    try {
      const value = await this.withinTimeout(command(this.client));
      // A slow answer to a command sent before the last failure does not prove Redis is well again.
      if (startedAtMs >= this.failedAtMs) this.recordSuccess();
      return { ok: true, value };
    } catch (error) {
      if (error instanceof ReplyError && !meansAway(error as Error)) return this.recordRefusal(error as Error, startedAtMs);
      this.failedAtMs = this.now();
      this.skipUntilMs = this.failedAtMs + this.retryAfterMs;
      this.recordFailure(error instanceof Error ? error.message : String(error));
      return { ok: false, failure: 'away' };
    }
  }

  /**
   * A command that must reach Redis even if it is slow or away right now (a
   * claim's release): sent at once behind whatever this connection already
   * sent (so a timed-out `SET` that Redis applies late is undone right after
   * it), without the skip window or the timeout, and kept for the next
   * reconnection when it cannot be sent. `id` names it, so a second release
   * of the same thing replaces the first. Never rejects; resolves once the
   * first try settles.
   */
  async eventually(id: string, command: (client: RedisClient) => Promise<unknown>): Promise<void> {
    this.pending.delete(id);
    await this.send(id, { command, tries: 0 });
  }

  /**
   * A value under `key` that is not what the subgraph writes (readValue.ts):
   * logged once per key (never its content: it may be anything), counted as
   * refused with reason `BADVALUE`, and deleted so that it is not read again:
   * the whole key, or only the bad `part` (one field of a hash, one member of
   * a set or a sorted set), so the good entries beside it stay.
   */
  discardBadValue(key: string, part?: BadPart): void {
    this.onRefused('BADVALUE');
    if (!this.badKeysLogged.has(key)) {
      if (this.badKeysLogged.size >= MAX_PENDING) this.badKeysLogged.clear();
      this.badKeysLogged.add(key);
      this.logger.warn({ redis: 'bad-value', key }, 'Redis held a value the subgraph did not write: treated as a miss and deleted');
    }
    void this.attempt((client) => {
      if (part === undefined) return client.del(key);
      if ('field' in part) return client.hdel(key, part.field);
      return 'member' in part ? client.srem(key, part.member) : client.zrem(key, part.scoredMember);
    });
  }

  private async send(id: string, entry: Pending): Promise<void> {
    entry.tries += 1;
    if (this.client.status === 'ready') {
      try {
        await entry.command(this.client);
        return;
      } catch (error) {
        // Refused: sending it again would be refused again.
        if (error instanceof ReplyError) return;
      }
    }
    if (entry.tries >= MAX_TRIES) return;
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next();
      if (oldest.done !== true) this.pending.delete(oldest.value);
    }
    this.pending.set(id, entry);
  }

  private flushPending(): void {
    const entries = [...this.pending];
    this.pending.clear();
    for (const [id, entry] of entries) void this.send(id, entry);
  }

  /**
   * Not ioredis's `commandTimeout`: its timer fires when the event loop gets
   * to it, and a busy loop (a CPU-bound burst of operations) then blames Redis
   * for a reply already waiting in the socket. Here the timer first lets
   * pending I/O run once (timers, then I/O, then `setImmediate`), so only an
   * answer that really has not arrived counts as a timeout.
   */
  private withinTimeout<T>(pending: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        void afterPendingIo().then(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)));
      }, this.timeoutMs);
    });
    return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
  }

  /** Redis answered, with an error for this command: counted and logged (rate-limited per reason), never an outage. */
  private recordRefusal(error: Error, startedAtMs: number): Attempt<never> {
    if (startedAtMs >= this.failedAtMs) this.recordSuccess();
    const reason = refusalReason(error);
    this.onRefused(reason);
    if (lacksPermission(error)) this.lastPermissionRefusalMs = this.now();
    const now = this.now();
    if (now - (this.lastRefusalLogMs.get(reason) ?? Number.NEGATIVE_INFINITY) >= this.warnIntervalMs) {
      this.lastRefusalLogMs.set(reason, now);
      this.logger.warn({ redis: 'refused', reason }, 'Redis refused a command: that one read or write falls back, the state stays shared');
    }
    return { ok: false, failure: 'refused', reason };
  }

  private recordSuccess(): void {
    this.flushPending();
    if (this.current === 'shared') return;
    this.current = 'shared';
    this.logger.info({ redis: 'shared' }, 'Redis reachable again: token, answer cache and budget are shared again');
    for (const listener of this.recoveryListeners) listener();
  }

  /** Each outage is logged when it starts; while it lasts, a reminder at most once per interval. */
  private recordFailure(reason: string): void {
    const started = this.current === 'shared';
    this.current = 'degraded';
    this.failuresSinceWarn += 1;
    const now = this.now();
    if (!started && now - this.lastWarnMs < this.warnIntervalMs) return;
    this.logger.warn(
      { redis: 'degraded', reason, failures: this.failuresSinceWarn },
      'Redis unavailable: using in-process token, answer cache and budget until it answers again',
    );
    this.lastWarnMs = now;
    this.failuresSinceWarn = 0;
  }
}

/** Reply errors that say this server cannot serve us now (loading, a replica after failover, a cluster in trouble): an outage, not a refusal. */
const AWAY_CODES = new Set(['LOADING', 'READONLY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'BUSY', 'NOAUTH', 'WRONGPASS']);
/** The refusal codes counted by name; any other is `OTHER`, so the metric's labels stay bounded. */
const REFUSAL_CODES = new Set(['OOM', 'WRONGTYPE', 'ERR', 'NOSCRIPT', 'EXECABORT', 'NOPERM', 'MOVED', 'ASK', 'CROSSSLOT']);

function errorCode(error: Error): string {
  return /^[A-Z]+/.exec(error.message)?.[0] ?? 'ERR';
}

function meansAway(error: Error): boolean {
  return AWAY_CODES.has(errorCode(error));
}

/** NOPERM, alone or as the reason a transaction was discarded (EXECABORT, with the queued command's NOPERM among its previous errors). */
function lacksPermission(error: Error): boolean {
  if (errorCode(error) === 'NOPERM') return true;
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  return Array.isArray(previous) && previous.some((cause) => cause instanceof Error && errorCode(cause) === 'NOPERM');
}

/** The error's code as Redis sends it (`OOM command not allowed…` → `OOM`); a bounded label, never the message (it may quote a value). */
function refusalReason(error: Error): string {
  const code = errorCode(error);
  return REFUSAL_CODES.has(code) ? code : 'OTHER';
}
