import type { Clock } from '../tables/clock';
import type { TableRefreshes } from '../tables/refreshes';
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
}

/**
 * One feed per distinct subscription (field and arguments), shared by all
 * its subscribers: it reads when its table is written and on a slow pulse,
 * and pushes to every subscriber only what changed. However many subscribe,
 * one read per write; each read is an ask of the table like a query's, so
 * the pulse keeps the table in demand (refreshed in its turn), and a read
 * never starts a vendor query of its own.
 */
export class LiveFeed<T> {
  private readonly subscribers = new Set<LatestQueue<Emission<T>>>();
  private last: { value: T } | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private closed = false;
  private readonly stopListening: () => void;
  /** Aborted at close: the feed's waiting asks and refreshes are withdrawn, its pulse's timer cleared (demand leaves with it). */
  private readonly left = new AbortController();

  constructor(
    private readonly source: FeedSource<T>,
    private readonly options: LiveFeedOptions,
    private readonly onEmpty: () => void,
  ) {
    this.stopListening = options.refreshes.on(source.table, () => void this.update());
    void this.pulse();
  }

  /** A new subscriber gets the latest numbers at once, or the first read's when there are none yet. */
  add(subscriber: LatestQueue<Emission<T>>): void {
    this.subscribers.add(subscriber);
    if (this.last !== undefined) subscriber.push(this.last);
    else void this.update();
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

  /** One read at a time: a write during a read makes one more read after it, never a queue of them. */
  private update(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reading !== undefined) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = this.readOnce().finally(() => {
      this.reading = undefined;
      if (this.readAgain) {
        this.readAgain = false;
        void this.update();
      }
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    let emission: Emission<T>;
    try {
      emission = { value: await this.source.read(this.options.clock.now() + this.options.askDeadlineMs, this.left.signal) };
    } catch (error) {
      emission = { error: error instanceof Error ? error : new Error(String(error)) };
    }
    if (this.closed) return;
    if ('error' in emission) {
      // Those still waiting for a first answer get the error; the others keep the numbers they have.
      for (const subscriber of this.subscribers) if (!subscriber.hasEmission()) subscriber.push(emission);
      return;
    }
    const changed = this.last === undefined || !this.source.same(this.last.value, emission.value);
    if (changed) this.last = emission;
    for (const subscriber of this.subscribers) if (changed || !subscriber.hasEmission()) subscriber.push(emission);
  }

  private async pulse(): Promise<void> {
    while (!this.closed) {
      await this.options.clock.sleep(this.options.pulseMs, this.left.signal);
      if (this.closed) return;
      await this.update();
    }
  }
}
