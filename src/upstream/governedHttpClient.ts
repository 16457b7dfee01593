import type { HttpClient, JsonRequest } from '../http/httpClient';
import { UpstreamError } from '../http/upstreamError';
import type { UpstreamEventSink } from './events';
import type { Budget, Governor } from './governor';

export interface GovernedHttpClientOptions {
  http: HttpClient;
  governor: Governor;
  /** The budget a request spends; undefined for requests no budget covers. */
  budgetOf: (request: JsonRequest) => Budget | undefined;
  /** The whole call's time budget (UPSTREAM_TIMEOUT_MS): a 429 is retried only when its Retry-After fits in what is left. */
  deadlineMs: number;
  now: () => number;
  onEvent: UpstreamEventSink;
}

/**
 * An HttpClient whose every request first takes its place in its budget.
 * Sitting at the HTTP level, it governs each request the upstream counts:
 * sign-ins, the repeat after a 401, retries.
 */
export function createGovernedHttpClient(options: GovernedHttpClientOptions): HttpClient {
  return {
    requestJson: async (request) => {
      const budget = options.budgetOf(request);
      if (budget === undefined) return options.http.requestJson(request);
      const deadline = options.now() + options.deadlineMs;
      await options.governor.acquire(budget, request);
      try {
        return await options.http.requestJson(request);
      } catch (error) {
        if (!isTooManyRequests(error)) throw error;
        return retryAfterPause(request, budget, error, deadline, options);
      }
    },
  };
}

/**
 * The upstream's budget is spent even though ours was not (another client of
 * the account, or a budget configured too high): pause ours for everyone, and
 * repeat this request once only if it is safe to repeat and the pause ends
 * before the caller's deadline; it then waits its turn like any other.
 */
async function retryAfterPause(
  request: JsonRequest,
  budget: Budget,
  error: UpstreamError,
  deadline: number,
  options: GovernedHttpClientOptions,
): Promise<unknown> {
  const retryAfterSeconds = error.retryAfterSeconds;
  options.onEvent({
    type: 'rate_limited',
    service: error.service,
    endpoint: error.endpoint,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
  if (retryAfterSeconds === undefined) throw error;
  await options.governor.pause(budget, retryAfterSeconds);
  const safe = request.method === 'GET' || request.idempotent === true;
  const leftMs = deadline - options.now();
  if (!safe || retryAfterSeconds * 1000 > leftMs) throw error;
  await options.governor.acquire(budget, request, leftMs);
  return options.http.requestJson(request);
}

function isTooManyRequests(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 429;
}
