/**
 * An Observer that records what the call path and the budget queue report as plain events, so tests
 * can assert the sequence of what the call path reported.
 */
import type { CacheOutcome } from '../../src/kernel/fetched';
import type { UpstreamService } from '../../src/kernel/failures/upstreamError';
import { NO_OBSERVER, type AskKindName, type AskRefusalReason, type RateName, type Observer } from '../../src/kernel/observer';

export type UpstreamEvent =
  | { type: 'cache'; outcome: CacheOutcome; service: UpstreamService; endpoint: string }
  | { type: 'governor'; outcome: 'queued' | 'released' | 'refused' | 'paused'; rate: RateName; waitMs: number }
  | { type: 'breaker'; service: UpstreamService; state: 'open' | 'half_open' | 'closed' }
  | { type: 'rate_limited'; service: UpstreamService; endpoint: string; retryAfterSeconds?: number }
  | { type: 'governor_granted'; rate: RateName; service: UpstreamService; endpoint: string }
  | { type: 'attempt'; service: UpstreamService; endpoint: string; status?: number; failure?: string }
  | { type: 'retry'; service: UpstreamService; endpoint: string; retry: number }
  | { type: 'sign_in'; outcome: 'ok' | 'failed' }
  | { type: 'token_renewal'; reason: string }
  | { type: 'asks_waiting'; kind: AskKindName; count: number }
  | { type: 'ask_refused'; kind: AskKindName; reason: AskRefusalReason }
  | { type: 'slot_spent'; kind: AskKindName; asks: number }
  | { type: 'caller_slots'; caller: string; slots: number }
  | { type: 'caller_refused'; caller: string }
  | { type: 'table_fetched'; table: string; fetchedAt: number };

/** Pushes every event it hears onto `events` (or a fresh list, returned as `events`). */
export function recordEvents(events: UpstreamEvent[] = []): Observer & { events: UpstreamEvent[] } {
  return {
    // The live numbers' and the operations' events are other tests' (test/observability/).
    ...NO_OBSERVER,
    events,
    attemptFinished: (attempt) =>
      events.push({
        type: 'attempt',
        service: attempt.service,
        endpoint: attempt.endpoint,
        ...(attempt.status === undefined ? {} : { status: attempt.status }),
        ...(attempt.failure === undefined ? {} : { failure: attempt.failure }),
      }),
    retryScheduled: (where, retry) => events.push({ type: 'retry', ...where, retry }),
    governorGranted: (rate, where) => events.push({ type: 'governor_granted', rate, service: where.service, endpoint: where.endpoint }),
    governorQueued: (rate, waitMs) => events.push({ type: 'governor', outcome: 'queued', rate, waitMs }),
    governorReleased: (rate, waitMs) => events.push({ type: 'governor', outcome: 'released', rate, waitMs }),
    governorRefused: (rate, waitMs) => events.push({ type: 'governor', outcome: 'refused', rate, waitMs }),
    rateLimited: (where, retryAfterSeconds) =>
      events.push({ type: 'rate_limited', ...where, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) }),
    budgetPaused: (rate, waitMs) => events.push({ type: 'governor', outcome: 'paused', rate, waitMs }),
    breakerChanged: (service, state) => events.push({ type: 'breaker', service, state }),
    answerServed: (where, outcome) => events.push({ type: 'cache', outcome, service: where.service, endpoint: where.endpoint }),
    signedIn: (outcome) => events.push({ type: 'sign_in', outcome }),
    tokenRenewed: (reason) => events.push({ type: 'token_renewal', reason }),
    asksWaiting: (kind, count) => events.push({ type: 'asks_waiting', kind, count }),
    askRefused: (kind, reason) => events.push({ type: 'ask_refused', kind, reason }),
    slotSpent: (kind, asks) => events.push({ type: 'slot_spent', kind, asks }),
    callerSlotsSpent: (caller, slots) => events.push({ type: 'caller_slots', caller, slots }),
    callerAskRefused: (caller) => events.push({ type: 'caller_refused', caller }),
    tableFetched: (table, fetchedAt) => events.push({ type: 'table_fetched', table, fetchedAt }),
  };
}
