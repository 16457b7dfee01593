import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { closeRedisClient, reconnectAfterUnplannedEnd, type RedisClient } from '../connection/client';
import type { SharedRedis } from '../connection/sharedRedis';
import type { TableRefreshed, TableRefreshes } from '../../reporting/tables/refreshes';

/** Channel names are not key names: ioredis does not prefix them, so the deployment's prefix is added here. */
const CHANNEL_SUFFIX = 'analytics:refreshed';

export interface RefreshChannel {
  /** Stops listening (shutdown). */
  close(): Promise<void>;
}

/**
 * The tables' "refreshed" event across replicas: each write this replica
 * makes is published (PUBLISH, through SharedRedis like every command: never
 * waits on a missing Redis), and every other replica's write is received on a
 * connection of its own (a subscribed connection can send nothing else).
 * A replica's own messages are skipped: its listeners heard the write already.
 * A message lost while Redis is away costs a subscriber only the wait until
 * its feed's next pulse (src/reporting/live/liveFeed.ts).
 */
export function connectRefreshChannel(redis: SharedRedis, keyPrefix: string, refreshes: TableRefreshes): RefreshChannel {
  const channel = keyPrefix + CHANNEL_SUFFIX;
  const replica = randomUUID();
  const subscriber = subscriberOf(redis.client);
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
    const event = parseMessage(text, replica);
    if (event !== undefined) refreshes.receive(event);
  });
  // Its errors are the shared connection's to report (SharedRedis logs outages); here they only must not crash the process.
  subscriber.on('error', () => undefined);
  void subscriber.subscribe(channel).catch(() => undefined);
  refreshes.broadcastTo({
    publish: (event) => {
      void redis.attempt((client) => client.publish(channel, JSON.stringify({ ...event, replica })));
    },
  });
  return {
    close: () => closeRedisClient(subscriber),
  };
}

/** A second connection, which (unlike the shared one) queues its SUBSCRIBE until Redis is up and renews it after each reconnection. */
function subscriberOf(client: RedisClient): RedisClient {
  if (client instanceof Cluster) return client.duplicate(undefined, { enableOfflineQueue: true });
  return reconnectAfterUnplannedEnd(client.duplicate({ enableOfflineQueue: true }));
}

function parseMessage(text: string, ownReplica: string): TableRefreshed | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { key, fetchedAt, replica } = parsed as Record<string, unknown>;
  if (replica === ownReplica || typeof key !== 'string' || typeof fetchedAt !== 'number') return undefined;
  return { key, fetchedAt };
}
