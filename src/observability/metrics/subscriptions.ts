import type { Registry } from 'prom-client';
import { createSubscriptionInstruments } from './registry';

/** Why a subscriber was dropped by the subgraph (not by its own choice). */
export type DropReason = 'slow_consumer' | 'shutdown';

/** Why a live feed read its table: a subscriber waiting for its first numbers, a refresh of the table, or the pulse. */
export type FeedReadTrigger = 'subscriber' | 'refresh' | 'pulse';

/** What became of a subscribe message on a WebSocket (src/web/subscriptions/webSocketTransport.ts). */
export type StartOutcome = 'pipeline' | 'abandoned' | 'refused_rate' | 'refused_waiting';

/** Live numbers' series (docs/subscriptions.md): subscriptions open by field, events sent, subscribers dropped, feeds' reads. */
export interface SubscriptionMetrics {
  opened(field: string): void;
  closed(field: string): void;
  sent(field: string): void;
  dropped(reason: DropReason): void;
  feedRead(trigger: FeedReadTrigger): void;
  socketRefused(reason: 'max_sockets'): void;
  socketClosed(reason: 'idle'): void;
  start(outcome: StartOutcome): void;
}

/** The live numbers' recording functions over their instruments (defined with every other series in registry.ts). */
export function subscriptionMetrics(registry: Registry): SubscriptionMetrics {
  const { open, events, drops, feedReads, socketsRefused, socketsClosed, starts } = createSubscriptionInstruments(registry);
  return {
    opened: (field) => open.inc({ field }),
    closed: (field) => open.dec({ field }),
    sent: (field) => events.inc({ field }),
    dropped: (reason) => drops.inc({ reason }),
    feedRead: (trigger) => feedReads.inc({ trigger }),
    socketRefused: (reason) => socketsRefused.inc({ reason }),
    socketClosed: (reason) => socketsClosed.inc({ reason }),
    start: (outcome) => starts.inc({ outcome }),
  };
}
