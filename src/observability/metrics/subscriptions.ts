import { Counter, Gauge, type Registry } from 'prom-client';

/** Why a subscriber was dropped by the subgraph (not by its own choice). */
export type DropReason = 'slow_consumer' | 'shutdown';

/** Live numbers' series (docs/subscriptions.md): subscriptions open by field, events sent, subscribers dropped. */
export interface SubscriptionMetrics {
  opened(field: string): void;
  closed(field: string): void;
  sent(field: string): void;
  dropped(reason: DropReason): void;
}

export function subscriptionMetrics(registry: Registry): SubscriptionMetrics {
  const registers = [registry];
  const open = new Gauge({
    name: 'subgraph_subscriptions_open',
    help: 'Subscriptions open on this replica, by field (every transport)',
    labelNames: ['field'] as const,
    registers,
  });
  const events = new Counter({
    name: 'subgraph_subscription_events_total',
    help: 'Events sent to subscribers, by field (one per subscriber and emission)',
    labelNames: ['field'] as const,
    registers,
  });
  const drops = new Counter({
    name: 'subgraph_subscribers_dropped_total',
    help: 'Subscribers the subgraph dropped, by reason (slow_consumer: its socket had too much unsent; shutdown: the drain)',
    labelNames: ['reason'] as const,
    registers,
  });
  return {
    opened: (field) => open.inc({ field }),
    closed: (field) => open.dec({ field }),
    sent: (field) => events.inc({ field }),
    dropped: (reason) => drops.inc({ reason }),
  };
}
