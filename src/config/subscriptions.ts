import type { EnvReader } from './env';

/** Live numbers (docs/subscriptions.md): how many subscriptions a replica carries, and how far a slow one may fall behind. */
export interface SubscriptionsConfig {
  /** MAX_SUBSCRIPTIONS: open subscriptions on this replica, every transport counted. */
  maxSubscriptions: number;
  /** MAX_SUBSCRIPTIONS_PER_CONNECTION: open subscriptions on one WebSocket. */
  maxPerConnection: number;
  /**
   * SUBSCRIPTION_MAX_BUFFERED_BYTES: bytes a WebSocket may have waiting to be
   * sent; past it the consumer is too slow and is dropped, before its backlog
   * grows the replica's memory.
   */
  maxBufferedBytes: number;
}

export const DEFAULT_SUBSCRIPTIONS_CONFIG: SubscriptionsConfig = Object.freeze({
  maxSubscriptions: 10_000,
  // A screen shows a few rankings and panels; a router multiplexes its clients' subscriptions on one socket per
  // client connection (passthrough), so 100 is far above one screen's need and far below the replica's cap.
  maxPerConnection: 100,
  // About a hundred emissions of a big ranking: a healthy client never has that much unread.
  maxBufferedBytes: 1024 * 1024,
});

export function readSubscriptions(reader: EnvReader): SubscriptionsConfig {
  return {
    maxSubscriptions: reader.integer('MAX_SUBSCRIPTIONS', { min: 0, max: 1_000_000 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxSubscriptions,
    maxPerConnection:
      reader.integer('MAX_SUBSCRIPTIONS_PER_CONNECTION', { min: 1, max: 100_000 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxPerConnection,
    maxBufferedBytes:
      reader.integer('SUBSCRIPTION_MAX_BUFFERED_BYTES', { min: 1_024, max: 1024 ** 3 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxBufferedBytes,
  };
}
