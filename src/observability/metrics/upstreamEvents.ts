import type { UpstreamEvent } from '../../upstream/events';
import type { Metrics } from './metrics';

type EventMetrics = Pick<
  Metrics,
  | 'recordCacheEvent'
  | 'recordGovernorWait'
  | 'recordGovernorRelease'
  | 'recordGovernorRefusal'
  | 'recordGovernorGrant'
  | 'recordRetryAfterWait'
  | 'setBreakerState'
>;

/**
 * The call path's `onEvent` sink that turns its events into metrics. 429s
 * themselves are already counted per attempt by the HTTP client's observer,
 * so `rate_limited` adds nothing here; the pause it causes arrives as a
 * governor `paused` event.
 */
export function upstreamEventMetrics(metrics: EventMetrics): (event: UpstreamEvent) => void {
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
      case 'governor_granted':
        metrics.recordGovernorGrant(event.rate);
        return;
      case 'rate_limited':
        return;
    }
  };
}

function recordGovernor(metrics: EventMetrics, event: Extract<UpstreamEvent, { type: 'governor' }>): void {
  const seconds = event.waitMs / 1000;
  if (event.outcome === 'queued') metrics.recordGovernorWait(event.rate, seconds);
  else if (event.outcome === 'released') metrics.recordGovernorRelease(event.rate);
  else if (event.outcome === 'refused') metrics.recordGovernorRefusal(event.rate);
  else metrics.recordRetryAfterWait(event.rate, seconds);
}
