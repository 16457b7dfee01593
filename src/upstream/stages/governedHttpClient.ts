import type { CallOptions, HttpClient, JsonRequest } from '../transport/httpClient';
import { UpstreamError } from '../failures/upstreamError';
import type { UpstreamEventSink } from '../events';
import type { Rate, Governor } from './governor';

export interface GovernedHttpClientOptions {
  http: HttpClient;
  governor: Governor;
  /** The rate a request spends from; undefined for requests no rate covers. */
  rateOf: (request: JsonRequest) => Rate | undefined;
  /** The whole call's time budget (UPSTREAM_TIMEOUT_MS): a 429 is retried only when its Retry-After fits in what is left. */
  deadlineMs: number;
  now: () => number;
  onEvent: UpstreamEventSink;
}

/**
 * An HttpClient whose every HTTP attempt first takes its own place in its
 * budget: the first try, each retry of the HTTP client (asked through
 * `beforeRetry`; one that gets no place within the call's deadline is not
 * sent and the caller gets the error before it), the repeat after a 429, and
 * — since they are requests of their own — sign-ins and the repeat after a
 * 401. The upstream counts every one of them, so the governor does too.
 */
export function createGovernedHttpClient(options: GovernedHttpClientOptions): HttpClient {
  return {
    requestJson: async (request, call) => {
      const rate = options.rateOf(request);
      if (rate === undefined) return options.http.requestJson(request, call);
      const deadline = options.now() + options.deadlineMs;
      try {
        return await governedCall(request, rate, options);
      } catch (error) {
        if (!isTooManyRequests(error)) throw error;
        return repeatAfterPause(request, rate, error, deadline, options);
      }
    },
  };
}

/**
 * The upstream's budget is spent even though ours was not (another client of
 * the account, or a budget configured too high): the pause is already in
 * place (see governedCall). Repeat this request once, only if it is safe to
 * repeat and the pause ends before the caller's deadline; it then waits its
 * turn like any other, and if it gets none in time the caller gets the 429.
 */
async function repeatAfterPause(
  request: JsonRequest,
  rate: Rate,
  error: UpstreamError,
  deadline: number,
  options: GovernedHttpClientOptions,
): Promise<unknown> {
  const retryAfterSeconds = error.retryAfterSeconds;
  const safe = request.method === 'GET' || request.idempotent === true;
  const leftMs = deadline - options.now();
  if (retryAfterSeconds === undefined || !safe || retryAfterSeconds * 1000 > leftMs) throw error;
  try {
    return await governedCall(request, rate, options, leftMs);
  } catch (repeatError) {
    throw isRefused(repeatError) ? error : repeatError;
  }
}

/** One call of the HTTP client (an attempt and its retries), each attempt with its own turn; a 429 pauses the budget. */
async function governedCall(request: JsonRequest, rate: Rate, options: GovernedHttpClientOptions, maxWaitMs?: number): Promise<unknown> {
  const where = whereOf(request);
  const turn = await options.governor.acquire(rate, where, maxWaitMs);
  const retries: CallOptions = {
    beforeRetry: async (remainingMs) => {
      // A retry's turn is never a probe of its own: the probe is this whole call.
      await options.governor.acquire(rate, where, remainingMs, turn);
    },
  };
  try {
    const json = await options.http.requestJson(request, retries);
    turn.finish('answered');
    return json;
  } catch (error) {
    if (isTooManyRequests(error)) {
      await pauseBudget(rate, error, options);
      turn.finish('rate_limited');
    } else {
      turn.finish(isAnswered(error) ? 'answered' : 'unanswered');
    }
    throw error;
  }
}

async function pauseBudget(rate: Rate, error: UpstreamError, options: GovernedHttpClientOptions): Promise<void> {
  const retryAfterSeconds = error.retryAfterSeconds;
  options.onEvent({
    type: 'rate_limited',
    service: error.service,
    endpoint: error.endpoint,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
  if (retryAfterSeconds !== undefined) await options.governor.pause(rate, retryAfterSeconds);
}

/** Only the names: the request itself carries the bearer token and, for sign-in, the password. */
function whereOf(request: JsonRequest): Pick<JsonRequest, 'service' | 'endpoint'> {
  return { service: request.service, endpoint: request.endpoint };
}

function isTooManyRequests(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 429;
}

function isRefused(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'budget_exhausted';
}

/** The upstream took the request and answered it (whatever it said), so it is accepting requests again. */
function isAnswered(error: unknown): boolean {
  return error instanceof UpstreamError && (error.kind === 'http' || error.kind === 'bad_response' || error.kind === 'metric_unavailable');
}
