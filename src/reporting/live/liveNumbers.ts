import { randomUUID } from 'node:crypto';
import type { Clock } from '../../kernel/clock';
import type { TableRefreshes } from '../tables/refreshes';
import type { FeedReadTrigger, Observer } from '../../kernel/observer';
import { FanOut } from './fanOut';
import { LatestQueue } from './latestQueue';
import { LiveFeed, type Emission, type FeedSource } from './liveFeed';

export interface LiveNumbersOptions {
  refreshes: TableRefreshes;
  clock: Clock;
  askDeadlineMs: number;
  /** DASHBOARD_CACHE_TTL_SECONDS: the feeds' pulse follows it (src/reporting/live/liveFeed.ts). */
  dashboardTtlSeconds: number;
  /** MAX_SUBSCRIPTIONS. */
  maxSubscriptions: number;
  /** The process's one observer: each subscription's start and end (the operation log's lines, the open gauge), its events and its feeds' reads. */
  observer: Pick<Observer, 'subscriptionOpened' | 'subscriptionClosed' | 'eventSent' | 'feedRead'>;
}

/** Shortest and longest pulse: often enough to ask for a refresh by half the TTL, never a busy loop. */
const MIN_PULSE_MS = 1_000;
const MAX_PULSE_MS = 30_000;

/**
 * The Subscription fields' one hub on a replica: it counts open
 * subscriptions against MAX_SUBSCRIPTIONS (every transport), shares one feed
 * per distinct subscription, and reports each subscription's start and end
 * to the one observer (the operation log writes a line for each).
 */
export class LiveNumbers {
  private readonly feeds = new Map<string, LiveFeed<unknown>>();
  private readonly fanOut = new FanOut();
  private openCount = 0;
  private closed = false;

  constructor(private readonly options: LiveNumbersOptions) {}

  get open(): number {
    return this.openCount;
  }

  /** A subscriber's stream of emissions; over the cap (or once closed) a SubscriptionRefused naming the cap. */
  subscribe<T>(field: string, source: FeedSource<T>): AsyncIterableIterator<Emission<T>> {
    if (this.closed) throw refusal('the subgraph is shutting down: subscribe again to reach another replica', 'SHUTTING_DOWN');
    if (this.openCount >= this.options.maxSubscriptions) {
      throw refusal(
        `this replica carries its maximum of ${this.options.maxSubscriptions} subscriptions (MAX_SUBSCRIPTIONS)`,
        'MAX_SUBSCRIPTIONS',
      );
    }
    const id = randomUUID();
    const startedAt = this.options.clock.now();
    const feed = this.feedOf(source);
    this.openCount += 1;
    const { observer } = this.options;
    // Never the arguments (urls, filters), as the operation line never has the variables.
    observer.subscriptionOpened({ id, field });
    const queue: LatestQueue<Emission<T>> = new LatestQueue({
      onDeliver: () => observer.eventSent(field),
      onEnd: () => {
        this.openCount -= 1;
        feed.remove(queue);
        const durationMs = this.options.clock.now() - startedAt;
        observer.subscriptionClosed({ id, field, durationMs, events: queue.delivered });
      },
    });
    feed.add(queue);
    return queue;
  }

  /** Shutdown: every feed stops and every subscriber's stream ends (its transport then completes it). */
  close(): void {
    this.closed = true;
    for (const feed of [...this.feeds.values()]) feed.close();
  }

  private feedOf<T>(source: FeedSource<T>): LiveFeed<T> {
    const existing = this.feeds.get(source.key) as LiveFeed<T> | undefined;
    if (existing !== undefined) return existing;
    const { refreshes, clock, askDeadlineMs, dashboardTtlSeconds } = this.options;
    const pulseMs = Math.min(MAX_PULSE_MS, Math.max(MIN_PULSE_MS, (dashboardTtlSeconds * 1000) / 4));
    const { observer } = this.options;
    const onRead = (trigger: FeedReadTrigger) => observer.feedRead(trigger);
    const feed: LiveFeed<T> = new LiveFeed(source, { refreshes, clock, askDeadlineMs, pulseMs, fanOut: this.fanOut, onRead }, () => {
      if (this.feeds.get(source.key) === feed) this.feeds.delete(source.key);
    });
    this.feeds.set(source.key, feed as LiveFeed<unknown>);
    return feed;
  }
}

/** A subscription over a cap, or while the replica shuts down: graphql/ answers it SUBSCRIPTION_LIMIT, naming `limit`. */
export class SubscriptionRefused extends Error {
  override readonly name = 'SubscriptionRefused';
  constructor(
    message: string,
    readonly limit: string,
  ) {
    super(`Subscription refused: ${message}`);
  }
}

function refusal(message: string, limit: string): SubscriptionRefused {
  return new SubscriptionRefused(message, limit);
}
