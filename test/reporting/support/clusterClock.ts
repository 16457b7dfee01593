/**
 * One fake clock for several replicas in one process, which moves only when
 * the test moves it, one replica at a time. Each replica sleeps on its own
 * view of it (`replica()`); `runUntil` wakes the timers that fall due in
 * order, and after each waits until every replica is quiet again before it
 * wakes the next: however long a replica's Redis round trips and HTTP took
 * in real time, none of it passes in the replicas' time, and no two replicas
 * act at once. (A time-lapse clock scaled that real latency into the
 * replicas' deadlines, and on a busy machine a slot passed an ask's deadline.)
 *
 * What "quiet" means is what the budget queue (src/reporting/budget/budgetQueue.ts)
 * does with the clock: each waiting ask holds a cancellable timer (its
 * deadline, cleared when it settles), and the queue's loop, between two
 * looks, a plain one (its pause). A replica is quiet while its loop sleeps
 * (a plain timer is armed) or while nothing of it waits (no timer at all),
 * and no I/O of its own is in flight: its Redis commands (`watchRedis`), its
 * vendor queries (`during`).
 */
import type { Command, Redis } from 'ioredis';
import type { Clock } from '../../../src/kernel/clock';

/** A replica's view of the cluster's clock: the time they all share, and timers the clock knows are this replica's. */
export interface ReplicaClock extends Clock {
  readonly replica: number;
}

interface Timer {
  at: number;
  replica: number;
  /** Armed with an AbortSignal (an ask's deadline), not a plain sleep (the queue's pause). */
  cancellable: boolean;
  wake: () => void;
}

export class ClusterClock {
  private readonly timers: Timer[] = [];
  private replicas = 0;
  /** Conditions the test waits for, looked at again whenever a timer is armed or leaves, or I/O in flight lands. */
  private readonly watchers = new Set<() => void>();
  /** I/O in flight, by replica (`during`). */
  private readonly inFlight = new Map<number, number>();

  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  /** A new replica's clock. */
  replica(): ReplicaClock {
    const replica = this.replicas++;
    return { replica, now: () => this.time, sleep: (ms, signal) => this.sleep(replica, ms, signal) };
  }

  /**
   * Counts the replica's Redis commands in flight (those of its client): it is not quiet while one is. Between two
   * timers a replica's loop awaits Redis (the budget's bucket, the board, the claims) holding no timer at all, and
   * was taken for quiet: the clock moved on under it, to another replica's timer, and a slot promised to it passed
   * while it read when that slot was (issue 38: the url ask's promised slot went unsent, one run in four). A command
   * counts until the turn after its reply, so what the reply starts (a timer, the next command) is armed first.
   */
  watchRedis(replica: ReplicaClock, client: Pick<Redis, 'sendCommand'>): void {
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command: Command, ...rest) => {
      // Its rejection is the caller's (ioredis hands it the same promise).
      this.during(replica, command.promise).catch(() => undefined);
      return send(command, ...rest);
    };
  }

  /**
   * `work` (a replica's I/O: a Redis command, a vendor query) in flight: the replica is not quiet until the turn after
   * it settles, so what its end starts (a timer, the next command) is armed first. Settles as `work` does.
   */
  async during<T>(replica: ReplicaClock, work: Promise<T>): Promise<T> {
    this.inFlight.set(replica.replica, (this.inFlight.get(replica.replica) ?? 0) + 1);
    try {
      return await work;
    } finally {
      setImmediate(() => {
        this.inFlight.set(replica.replica, (this.inFlight.get(replica.replica) ?? 1) - 1);
        this.changed();
      });
    }
  }

  /** Resolves once `replica` waits for a slot: `asks` deadlines armed, and its queue's loop asleep until its next look. */
  waiting(replica: ReplicaClock, asks: number): Promise<void> {
    return this.when(() => this.deadlines(replica.replica) === asks && this.asleep(replica.replica) && !this.busy(replica.replica));
  }

  /**
   * Moves time on until `done` settles: whenever every replica is quiet, the
   * next timer due wakes (time jumps to it), and nothing more moves until
   * every replica is quiet again. Resolves (or rejects) as `done` does.
   */
  async runUntil<T>(done: Promise<T>): Promise<T> {
    let over = false;
    const ended = done.then(
      () => (over = true),
      () => (over = true),
    );
    for (;;) {
      const quiet = this.when(() => this.timers.length > 0 && this.allQuiet());
      await Promise.race([ended, quiet]);
      if (over) {
        quiet.cancel();
        return done;
      }
      this.wakeNext();
      // The woken code runs its first step (its next command sent) before quiet is looked at again.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private sleep(replica: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.resolve();
    return new Promise((wake) => {
      const timer: Timer = { at: this.time + Math.max(0, ms), replica, cancellable: signal !== undefined, wake };
      this.timers.push(timer);
      this.changed();
      signal?.addEventListener(
        'abort',
        () => {
          this.remove(timer);
          wake();
        },
        { once: true },
      );
    });
  }

  /** The earliest timer (the first armed of those due together) wakes, at its time. */
  private wakeNext(): void {
    const next = this.timers.reduce((earliest, timer) => (timer.at < earliest.at ? timer : earliest));
    this.time = Math.max(this.time, next.at);
    this.remove(next);
    next.wake();
  }

  private remove(timer: Timer): void {
    const index = this.timers.indexOf(timer);
    if (index < 0) return;
    this.timers.splice(index, 1);
    this.changed();
  }

  private deadlines(replica: number): number {
    return this.timers.filter((timer) => timer.replica === replica && timer.cancellable).length;
  }

  private asleep(replica: number): boolean {
    return this.timers.some((timer) => timer.replica === replica && !timer.cancellable);
  }

  private busy(replica: number): boolean {
    return (this.inFlight.get(replica) ?? 0) > 0;
  }

  /** No Redis command in flight, and every replica's loop asleep, or nothing of it waiting. */
  private allQuiet(): boolean {
    if ([...this.inFlight.keys()].some((replica) => this.busy(replica))) return false;
    const replicas = new Set(this.timers.map((timer) => timer.replica));
    return [...replicas].every((replica) => this.asleep(replica));
  }

  /** Resolves once `condition` holds (looked at now, and whenever the timers change); `cancel` stops looking. */
  private when(condition: () => boolean): Promise<void> & { cancel(): void } {
    let look = () => {};
    const holds = new Promise<void>((resolve) => {
      look = () => {
        if (!condition()) return;
        this.watchers.delete(look);
        resolve();
      };
    });
    this.watchers.add(look);
    look();
    return Object.assign(holds, { cancel: () => this.watchers.delete(look) });
  }

  private changed(): void {
    for (const look of [...this.watchers]) look();
  }
}
