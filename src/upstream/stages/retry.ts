import { backoffDelayMs, type BackoffOptions } from '../transport/backoff';
import { CallDeadline } from '../transport/callDeadline';
import type { DeadlineTicks } from '../transport/deadlines';
import type { CallOptions, HttpClient } from '../transport/httpClient';
import { failurePolicyOf, type UpstreamError } from '../../kernel/failures/upstreamError';
import type { Observer } from '../../kernel/observer';

export interface RetryOptions {
  /** How often and how long to wait before retrying. */
  backoff: BackoffOptions;
  /** The whole call's time (UPSTREAM_TIMEOUT_MS), its attempts and pauses included. */
  timeoutMs: number;
  /** Shared call deadlines (the transport's abort signals). */
  deadlines: DeadlineTicks;
  /** How the pause before a retry is waited out: a timer in production. */
  sleep: (ms: number) => Promise<void>;
  logger: { warn(details: object, message: string): void };
  observer: Pick<Observer, 'retryScheduled'>;
}

/** An HTTP-level stage: given the client below it, the client it offers above. */
export type HttpStage = (next: HttpClient) => HttpClient;

/**
 * The retry rule, written once, above the governor: every attempt goes down
 * through the governor like any call (and so spends its own place in the
 * budget, granted by the budget queue for a reporting query, or is not sent), and the transport makes one attempt. What is
 * retried is the failure policy's `retry` column (failures/policy.ts), and
 * only for requests that are safe to repeat (GET, or a POST marked
 * idempotent):
 * - `backoff` (a 502-504, a dropped connection): at most `backoff.retries`
 *   times, after a jittered exponential pause, and only when that pause ends
 *   with a quarter of the call's timeout still left (a retry is worth its slot
 *   of the rate only with time left to answer); the governor then has until
 *   that point to grant it.
 * - `after_pause` (a 429; the governor stage has paused the budget): repeated
 *   once, only if its Retry-After (already clamped by the transport) ends
 *   before the call's deadline; the repeat waits its turn like any other, with
 *   a deadline of its own and its own retries, as a new call.
 * A retry the governor refuses is not sent: the caller gets the error of the
 * attempt before it.
 *
 * Not cockatiel's retry policy (the breaker's library): it waits its backoff
 * on its own timers, decides per attempt from one `handleWhen` predicate, and
 * has no notion of a deadline shared with the attempts or of a repeat whose
 * pause is the upstream's Retry-After; each of those is a rule here.
 */
export function retryStage(options: RetryOptions): HttpStage {
  return (next) => ({
    requestJson: async (request, call) => {
      const safe = request.method === 'GET' || request.idempotent === true;
      let deadline = new CallDeadline(options.timeoutMs, options.deadlines);
      let maxWaitMs: number | undefined;
      let repeatedAfterPause = false;
      let retries = 0;
      let previous: UpstreamError | undefined;
      for (;;) {
        let error: unknown;
        try {
          // Each attempt carries the budget queue's grant, if the call has one: every retry asks it again.
          return await next.requestJson(request, { deadline, ...(maxWaitMs === undefined ? {} : { maxWaitMs }), ...grantOf(call) });
        } catch (caught) {
          error = caught;
        }
        const policy = failurePolicyOf(error);
        // A retry refused here (the governor, within its wait) was never sent: its caller keeps the error before it.
        if (previous !== undefined && policy?.local === true) throw previous;
        if (!safe || policy === undefined) throw error;
        const failed = error as UpstreamError;
        if (policy.retry === 'backoff' && retries < options.backoff.retries) {
          const delayMs = backoffDelayMs(retries, options.backoff);
          const sendWithinMs = deadline.remainingMs() - options.timeoutMs / 4;
          if (delayMs >= sendWithinMs) throw failed;
          retries += 1;
          logRetry(options, failed, retries, delayMs);
          options.observer.retryScheduled({ service: failed.service, endpoint: failed.endpoint }, retries, delayMs);
          await options.sleep(delayMs);
          maxWaitMs = sendWithinMs - delayMs;
        } else if (policy.retry === 'after_pause' && !repeatedAfterPause) {
          const leftMs = deadline.remainingMs();
          if (failed.retryAfterSeconds === undefined || failed.retryAfterSeconds * 1000 > leftMs) throw failed;
          repeatedAfterPause = true;
          retries = 0;
          deadline = new CallDeadline(options.timeoutMs, options.deadlines);
          maxWaitMs = leftMs;
        } else {
          throw failed;
        }
        previous = failed;
      }
    },
  });
}

function grantOf(call: CallOptions | undefined): Pick<CallOptions, 'grant'> {
  return call?.grant === undefined ? {} : { grant: call.grant };
}

function logRetry(options: RetryOptions, error: UpstreamError, retry: number, delayMs: number): void {
  options.logger.warn(
    { service: error.service, endpoint: error.endpoint, status: error.status, reason: error.reason, retry, delayMs: Math.round(delayMs) },
    'upstream request failed; retrying after a pause',
  );
}
