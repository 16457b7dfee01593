import type { Observer } from '../kernel/observer';
import type { Metrics } from './metrics/metrics';

/** The one observer's metrics: every event of the call path, the budget queue, the live numbers and the operations as series. */
export function metricsObserver(metrics: Metrics): Observer {
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
    subscriptionOpened: ({ field }) => metrics.recordSubscriptionOpened(field),
    subscriptionClosed: ({ field }) => metrics.recordSubscriptionClosed(field),
    eventSent: (field) => metrics.recordEventSent(field),
    subscriberDropped: (reason) => metrics.recordSubscriberDropped(reason),
    feedRead: (trigger) => metrics.recordFeedRead(trigger),
    socketRefused: (reason) => metrics.recordSocketRefused(reason),
    socketClosed: (reason) => metrics.recordSocketClosed(reason),
    subscribeStarted: (outcome) => metrics.recordSubscribeStart(outcome),
    operationFinished: (operation) => {
      metrics.recordOperation({
        name: operation.name,
        type: operation.type ?? 'unknown',
        outcome: operation.outcome,
        durationSeconds: operation.durationMs / 1000,
        upstreamCalls: operation.upstreamCalls,
      });
      for (const code of new Set(operation.limitCodes)) metrics.recordLimitRefusal(code);
    },
    redisRefused: (reason) => metrics.recordRedisRefusal(reason),
    limitRefused: (code) => metrics.recordLimitRefusal(code),
    batchLoaded: (loader, size) => metrics.recordBatch(loader, size),
    // A bug is the log's (operationLog.ts); its operation is counted by its outcome.
    unexpectedError: () => undefined,
  };
}
