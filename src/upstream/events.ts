import type { CacheOutcome } from './datasources/fetched';
import type { UpstreamService } from './failures/upstreamError';

/** The rates the governor keeps (one bucket per account, email or host within each). */
export type RateName = 'reporting' | 'signin' | 'render';

/**
 * What the upstream call path reports for metrics. Labels are deliberately
 * coarse (service, endpoint, rate name): never an email, a reader id or a
 * cache key, which would leak caller data into metrics and explode their
 * cardinality.
 */
export type UpstreamEvent =
  | {
      type: 'cache';
      /** See CacheOutcome: how the call path found the answer it serves. */
      outcome: CacheOutcome;
      service: UpstreamService;
      endpoint: string;
    }
  | {
      type: 'governor';
      /** queued: starts waiting for its rate; released: that wait is over; refused: would wait too long; paused: an upstream 429 */
      outcome: 'queued' | 'released' | 'refused' | 'paused';
      /** The rate (the metric label keeps the name `budget`, for existing dashboards). */
      rate: RateName;
      waitMs: number;
    }
  | { type: 'breaker'; service: UpstreamService; state: 'open' | 'half_open' | 'closed' }
  | { type: 'rate_limited'; service: UpstreamService; endpoint: string; retryAfterSeconds?: number }
  /** The governor let one HTTP attempt go (first tries, retries, repeats and sign-ins alike): as many as subgraph_upstream_requests_total counts for governed endpoints. */
  | { type: 'governor_granted'; rate: RateName; service: UpstreamService; endpoint: string };

/** The one optional hook of the call path; it must not throw (it is called in the middle of upstream calls). */
export type UpstreamEventSink = (event: UpstreamEvent) => void;

/** How a stage reports the cache outcome it decided on (the endpoint fills in service and endpoint). */
export type CacheEventSink = (outcome: CacheOutcome) => void;

/** Calls the sink, and keeps a faulty sink from failing the upstream call it reports on. */
export function emitter(sink: UpstreamEventSink | undefined): UpstreamEventSink {
  if (sink === undefined) return () => {};
  return (event) => {
    try {
      sink(event);
    } catch {
      // Metrics are best effort: an upstream answer is worth more than its counter.
    }
  };
}
