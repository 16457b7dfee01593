import type { RedisClient } from './client';
import { setImmediate as afterPendingIo } from 'node:timers/promises';

/** `shared`: state lives in Redis. `degraded`: Redis is away or slow and each replica uses its own in-process state. */
export type SharingMode = 'shared' | 'degraded';

/** What SharedRedis logs through (a pino logger fits). */
export interface RedisLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

export type Attempt<T> = { ok: true; value: T } | { ok: false };

export interface SharedRedisOptions {
  client: RedisClient;
  logger: RedisLogger;
  now?: () => number;
  /** A command not answered within this is a failure (REDIS_TIMEOUT_MS). */
  timeoutMs: number;
  /** At most one warning per this interval while degraded. Default 30 s. */
  warnIntervalMs?: number;
  /** After a failure, Redis is not asked again for this long (unless it reconnects), so a slow Redis costs one timeout, not one per call. Default 1 s. */
  retryAfterMs?: number;
}

/**
 * The one gate to Redis for the token, the answer cache, the budget and
 * Apollo's cache. Every command goes through `attempt`, which never rejects:
 * a failure (down, timeout, refused) reports `{ ok: false }` and the caller
 * uses its local fallback. Keeps the sharing mode, logs the change both ways
 * and rate-limits the warnings so a Redis outage is not one line per request.
 */
export class SharedRedis {
  readonly client: RedisClient;
  private readonly logger: RedisLogger;
  private readonly now: () => number;
  private readonly warnIntervalMs: number;
  private readonly retryAfterMs: number;
  private readonly timeoutMs: number;
  private warnedThisOutage = false;
  private current: SharingMode = 'shared';
  private skipUntilMs = 0;
  private failedAtMs = Number.NEGATIVE_INFINITY;
  private lastWarnMs = Number.NEGATIVE_INFINITY;
  private failuresSinceWarn = 0;
  private readonly recoveryListeners: (() => void)[] = [];

  constructor(options: SharedRedisOptions) {
    this.client = options.client;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.warnIntervalMs = options.warnIntervalMs ?? 30_000;
    this.retryAfterMs = options.retryAfterMs ?? 1_000;
    this.timeoutMs = options.timeoutMs;
    // Without a listener ioredis prints every connection error itself; here they count as failures.
    this.client.on('error', (error: Error) => this.recordFailure(error.message));
    this.client.on('ready', () => {
      this.skipUntilMs = 0;
    });
  }

  mode(): SharingMode {
    return this.current;
  }

  /** Called each time Redis answers again after a degraded period. */
  onRecovered(listener: () => void): void {
    this.recoveryListeners.push(listener);
  }

  async attempt<T>(command: (client: RedisClient) => Promise<T>): Promise<Attempt<T>> {
    if (this.client.status !== 'ready') {
      this.recordFailure(`connection ${this.client.status}`);
      return { ok: false };
    }
    // Right after a failure, Redis is left alone for a moment: a slow Redis costs one timeout, not one per call.
    if (this.now() < this.skipUntilMs) return { ok: false };
    const startedAtMs = this.now();
    try {
      const value = await this.withinTimeout(command(this.client));
      // A slow answer to a command sent before the last failure does not prove Redis is well again.
      if (startedAtMs >= this.failedAtMs) this.recordSuccess();
      return { ok: true, value };
    } catch (error) {
      this.failedAtMs = this.now();
      this.skipUntilMs = this.failedAtMs + this.retryAfterMs;
      this.recordFailure(error instanceof Error ? error.message : String(error));
      return { ok: false };
    }
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

  private recordSuccess(): void {
    if (this.current === 'shared') return;
    this.current = 'shared';
    // Only an outage that was announced gets its end announced: suppressed blips stay quiet both ways.
    if (!this.warnedThisOutage) return;
    this.warnedThisOutage = false;
    this.logger.info({ redis: 'shared' }, 'Redis reachable again: token, answer cache and budget are shared again');
    for (const listener of this.recoveryListeners) listener();
  }

  /** The warning is rate-limited across outages too: a flapping Redis still logs at most one warning per interval. */
  private recordFailure(reason: string): void {
    this.current = 'degraded';
    this.failuresSinceWarn += 1;
    const now = this.now();
    if (now - this.lastWarnMs < this.warnIntervalMs) return;
    this.logger.warn(
      { redis: 'degraded', reason, failures: this.failuresSinceWarn },
      'Redis unavailable: using in-process token, answer cache and budget until it answers again',
    );
    this.lastWarnMs = now;
    this.failuresSinceWarn = 0;
    this.warnedThisOutage = true;
  }
}
