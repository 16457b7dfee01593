import type { HttpObserver } from '../../upstream/transport/httpClient';
import type { Metrics } from './metrics';

/** The HTTP client's observer that turns each attempt into the upstream metrics. */
export function upstreamMetricsObserver(metrics: Pick<Metrics, 'recordUpstreamAttempt'>): HttpObserver {
  return {
    attemptFinished: (attempt) => {
      metrics.recordUpstreamAttempt({
        service: attempt.service,
        endpoint: attempt.endpoint,
        durationSeconds: attempt.durationMs / 1000,
        ...(attempt.status === undefined ? {} : { status: attempt.status }),
        ...(attempt.failure === undefined ? {} : { failure: attempt.failure }),
        ...(attempt.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: attempt.retryAfterSeconds }),
      });
    },
  };
}
