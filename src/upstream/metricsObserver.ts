import type { UpstreamObserver } from './observer';
import type { Metrics } from '../observability/metrics/metrics';

/** The observer of the upstream call path and of reporting's budget queue: turns every event into metrics (the one implementation). */
export function upstreamMetricsObserver(metrics: Metrics): UpstreamObserver {
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
    // Retries are counted as the attempts they send (subgraph_upstream_requests_total); the pause is logged.
    retryScheduled: () => undefined,
    governorGranted: (rate) => metrics.recordGovernorGrant(rate),
    governorQueued: (rate, waitMs) => metrics.recordGovernorWait(rate, waitMs / 1000),
    governorReleased: (rate) => metrics.recordGovernorRelease(rate),
    governorRefused: (rate) => metrics.recordGovernorRefusal(rate),
    rateLimited: (where) => metrics.recordRateLimited(where),
    budgetPaused: (rate, waitMs) => metrics.recordRetryAfterWait(rate, waitMs / 1000),
    breakerChanged: (service, state) => metrics.setBreakerState(service, state),
    answerServed: (where, outcome) => metrics.recordCacheEvent(where.endpoint, outcome),
    signedIn: (outcome) => metrics.recordSignIn(outcome),
    tokenRenewed: (reason) => metrics.recordTokenRenewal(reason),
    asksWaiting: (kind, count) => metrics.recordAsksWaiting(kind, count),
    // Every kind by its label (reporting_*); the tables' also in their analytics series, as before the one queue.
    askRefused: (kind, reason) => metrics.recordAskRefused(kind, reason),
    slotSpent: (kind, asks) => metrics.recordSlotSpent(kind, asks),
    callerSlotsSpent: (caller, slots) => metrics.recordCallerSlots(caller, slots),
    callerAskRefused: (caller) => metrics.recordCallerRefusal(caller),
    tableFetched: (table, fetchedAt) => metrics.recordTableFetched(table, fetchedAt),
  };
}
