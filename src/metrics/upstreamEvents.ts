import type { Metrics } from './metrics';

/**
 * The events the protected call path emits through its `onEvent` hook
 * (`UpstreamEvent` in src/upstream/events.ts on the protection branch),
 * restated here so this module builds on its own; after the merge this type
 * can be replaced by an import of that one.
 */
export type CallPathEvent =
  | { type: 'cache'; outcome: 'hit' | 'miss' | 'stale' | 'coalesced' | 'stale_if_error'; service: string; endpoint: string }
  | { type: 'governor'; outcome: 'queued' | 'refused' | 'paused'; budget: string; waitMs: number }
  | { type: 'breaker'; service: string; state: 'open' | 'half_open' | 'closed' }
  | { type: 'rate_limited'; service: string; endpoint: string; retryAfterSeconds?: number };

type EventMetrics = Pick<
  Metrics,
  'recordCacheEvent' | 'recordGovernorWait' | 'recordGovernorRefusal' | 'recordRetryAfterWait' | 'setBreakerState'
>;

/**
 * The call path's `onEvent` sink that turns its events into metrics. 429s
 * themselves are already counted per attempt by the HTTP client's observer,
 * so `rate_limited` adds nothing here; the pause it causes arrives as a
 * governor `paused` event.
 */
export function upstreamEventMetrics(metrics: EventMetrics): (event: CallPathEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'cache':
        metrics.recordCacheEvent(event.endpoint, event.outcome);
        return;
      case 'governor':
        recordGovernor(metrics, event);
        return;
      case 'breaker':
        metrics.setBreakerState(event.service, event.state);
        return;
      case 'rate_limited':
        return;
    }
  };
}

function recordGovernor(metrics: EventMetrics, event: Extract<CallPathEvent, { type: 'governor' }>): void {
  const seconds = event.waitMs / 1000;
  if (event.outcome === 'queued') metrics.recordGovernorWait(event.budget, seconds);
  else if (event.outcome === 'refused') metrics.recordGovernorRefusal(event.budget);
  else metrics.recordRetryAfterWait(event.budget, seconds);
}
