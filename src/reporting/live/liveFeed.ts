import type { Clock } from '../../kernel/clock';
import type { TableRefreshes } from '../tables/refreshes';
import type { FeedReadTrigger } from '../../kernel/observer';
import type { FanOut } from './fanOut';
import type { LatestQueue } from './latestQueue';

/** What one subscription field with one set of arguments reads, and how its answers compare. */
export interface FeedSource<T> {
  /** Identity of the feed: subscriptions with equal keys share one feed, one read per refresh. */
  key: string;
  /** The table whose writes it follows (its spec's key). */
  table: string;
  /**
   * Reads through the analytics tables' public API: a table's rows, or a wait for the next slot like any ask.
   * `signal` aborts when the feed's last subscriber left: its waiting asks are withdrawn before they take a slot.
   */
  read(deadline: number, signal: AbortSignal): Promise<T>;
  /** Whether two answers show the same numbers (then a refresh changed nothing and nothing is sent). */
  same(a: T, b: T): boolean;
}

/** What a subscriber receives: the numbers, or the error its field answers (the subscription stays open). */
export type Emission<T> = { value: T } | { error: Error };

export interface LiveFeedOptions {
  refreshes: TableRefreshes;
  clock: Clock;
  /** ANALYTICS_ASK_DEADLINE_MS: how long a read may wait for a slot. */
  askDeadlineMs: number;
  /** How often the feed reads its table although nothing was written: its demand, and a missed event's catch-up. */
  pulseMs: number;
  /** The replica's pace of pushes to subscribers (one for every feed). */
  fanOut: FanOut;
  /** Each read, with what started it (the feeds' reads series). */
  onRead?(trigger: FeedReadTrigger): void;
}

/**
 * One feed per distinct subscription (field and arguments), shared by all
 * its subscribers: it reads when its table is written and on a slow pulse,
 * and pushes to every subscriber only what changed. However many subscribe,
 * one read per write; each read is an ask of the table like a query's, so
 * the pulse keeps the table in demand (refreshed in its turn), and a read
 * never starts a vendor query of its own.
 *
 * Bounded whatever the tables do: a feed reads at most once per refresh
 * (a write with numbers fetched later than any it was told of) plus twice
 * per pulse (the pulse's own read, and one for writes no newer than that:
 * the same numbers written again, a repeat of the event, a narrowed answer
 * of the same instant), one read at a time. A table written again and again
 * with the same numbers once made each write a read, each read an ask for a
 * refresh, and each refresh answered from the answer cache a write: a loop
 * with no timer in it that pinned a core (issue 35).
 */
export class LiveFeed<T> {
  private readonly subscribers = new Set<LatestQueue<Emission<T>>>();
  private last: { value: T } | undefined;
  private reading: Promise<void> | undefined;
  /** What started the read to come after the current one (one at most), if any. */
  private readAgain: FeedReadTrigger | undefined;
  /** The newest `fetchedAt` a refresh event announced: an event no newer is not a refresh. */
  private newestRefresh = -Infinity;
  /** Whether a write no newer than `newestRefresh` was read since the last pulse (one such read a pulse). */
  private readRepeat = false;
  private closed = false;
  private readonly stopListening: () => void;
  /** Aborted at close: the feed's waiting asks and refreshes are withdrawn, its pulse's timer cleared (demand leaves with it). */
  private readonly left = new AbortController();

  constructor(
    private readonly source: FeedSource<T>,
    private readonly options: LiveFeedOptions,
    private readonly onEmpty: () => void,
  ) {
    this.stopListening = options.refreshes.on(source.table, (event) => this.refreshed(event.fetchedAt));
    void this.pulse();
  }

  /** A new subscriber gets the latest numbers at once, or the first read's when there are none yet. */
  add(subscriber: LatestQueue<Emission<T>>): void {
    this.subscribers.add(subscriber);
    if (this.last !== undefined) subscriber.push(this.last);
    else void this.update('subscriber');
  }

  remove(subscriber: LatestQueue<Emission<T>>): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.left.abort();
    this.stopListening();
    for (const subscriber of [...this.subscribers]) subscriber.end();
    this.onEmpty();
  }

  private refreshed(fetchedAt: number): void {
    if (fetchedAt > this.newestRefresh) this.newestRefresh = fetchedAt;
    else if (this.readRepeat) return;
    else this.readRepeat = true;
    void this.update('refresh');
  }

  /** One read at a time: a write during a read makes one more read after it, never a queue of them. */
  private update(trigger: FeedReadTrigger): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reading !== undefined) {
      this.readAgain ??= trigger;
      return this.reading;
    }
    this.reading = this.readOnce(trigger).finally(() => {
      this.reading = undefined;
      const again = this.readAgain;
      this.readAgain = undefined;
      if (again !== undefined) void this.update(again);
    });
    return this.reading;
  }

  private async readOnce(trigger: FeedReadTrigger): Promise<void> {
    this.options.onRead?.(trigger);
    let emission: Emission<T>;
    try {
      emission = { value: await this.source.read(this.options.clock.now() + this.options.askDeadlineMs, this.left.signal) };
    } catch (error) {
      emission = { error: error instanceof Error ? error : new Error(String(error)) };
    }
    if (this.closed) return;
    if ('error' in emission) {
      // Those still waiting for a first answer get the error; the others keep the numbers they have.
      this.fanOut((subscriber) => !subscriber.hasEmission(), emission);
      return;
    }
    const changed = this.last === undefined || !this.source.same(this.last.value, emission.value);
    if (changed) this.last = emission;
    this.fanOut((subscriber) => changed || !subscriber.hasEmission(), emission);
  }

  /**
   * Pushes to each subscriber it is wanted for, at the replica's pace
   * (./fanOut.ts); wanted or not is decided at the push, since an earlier
   * push may have given the subscriber its first numbers meanwhile.
   */
  private fanOut(wanted: (subscriber: LatestQueue<Emission<T>>) => boolean, emission: Emission<T>): void {
    for (const subscriber of this.subscribers) {
      this.options.fanOut.push(() => {
        if (!this.closed && wanted(subscriber)) subscriber.push(emission);
      });
    }
  }

  private async pulse(): Promise<void> {
    while (!this.closed) {
      await this.options.clock.sleep(this.options.pulseMs, this.left.signal);
      if (this.closed) return;
      this.readRepeat = false;
      await this.update('pulse');
    }
  }
}
