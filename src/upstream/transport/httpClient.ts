import type { Dispatcher } from 'undici';
import { CallDeadline } from './callDeadline';
import { DeadlineTicks, type DeadlineTick } from './deadlines';
import { exchange, type Answer, type Exchange } from './exchange';
import { parseRetryAfter } from './retryAfter';
import { isRecord } from './typeGuards';
import type { HttpAttempt, Observer } from '../../kernel/observer';
import { UpstreamError, type UpstreamFieldError, type UpstreamService } from '../../kernel/failures/upstreamError';

export interface JsonRequest {
  service: UpstreamService;
  /** The endpoint's path, used in errors and logs instead of the full URL. */
  endpoint: string;
  url: URL;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** A POST that only reads (e.g. the dashboard query) and so may be retried like a GET. */
  idempotent?: boolean;
}

export interface HttpClient {
  /**
   * Resolves with the parsed JSON of a 2xx answer, or undefined when a 200's
   * body is empty; rejects with an UpstreamError otherwise.
   */
  requestJson(request: JsonRequest, call?: CallOptions): Promise<unknown>;
}

/** Handed down with each attempt by the stages above (see pipeline.ts). */
export interface CallOptions {
  /** The time allowed the call, shared by its attempts (the retry stage's); one of the attempt's own otherwise. */
  deadline?: CallDeadline;
  /** Longest this attempt may wait for its governor grant; the governor's queue timeout (or the grant's own wait) otherwise. */
  maxWaitMs?: number;
  /**
   * The budget queue's grant of each attempt's place in the reporting budget (src/reporting/budget/budgetQueue.ts):
   * the governor stage awaits it instead of reserving, for every attempt (a retry, the repeat after a 401, each asks
   * again, and the queue counts each). Carried down unchanged by the token and retry stages.
   */
  grant?: SlotGrant;
}

/**
 * Takes one attempt's place in the budget, waiting at most `maxWaitMs` (undefined: the grant's own wait), or
 * rejects with `budget_exhausted` and retryAfter, having taken nothing.
 */
export type SlotGrant = (where: { service: UpstreamService; endpoint: string }, maxWaitMs: number | undefined) => Promise<void>;

export interface HttpClientOptions {
  dispatcher: Dispatcher;
  /** Budget of a call given no deadline of its own. */
  timeoutMs: number;
  /** Clock for HTTP-date `Retry-After` values. */
  now?: () => number;
  /** Shared call deadlines: the retry stage's and the transport's (src/upstream/upstreams.ts builds one per endpoint). */
  deadlines: DeadlineTicks;
  /** Told about every attempt, e.g. to record metrics. */
  observer?: Pick<Observer, 'attemptFinished'>;
  /** Largest body read from the upstream, after decoding (UPSTREAM_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** `Retry-After` values are clamped to this many seconds (MAX_RETRY_AFTER_SECONDS), here and only here. */
  maxRetryAfterSeconds: number;
}

type ResolvedOptions = HttpClientOptions & { deadlines: DeadlineTicks };

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The transport: exactly one HTTP attempt per call, within the call's
 * deadline, its failure mapped to an UpstreamError. Whether to try again is
 * the retry stage's decision (stages/retry.ts), above the governor.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const resolved: ResolvedOptions = options;
  return {
    requestJson: (jsonRequest, call) => {
      const deadline = call?.deadline ?? new CallDeadline(resolved.timeoutMs, resolved.deadlines);
      return observedAttempt(jsonRequest, resolved, deadline);
    },
  };
}

/** `attempt`, reported to the observer however it ends. */
async function observedAttempt(jsonRequest: JsonRequest, options: ResolvedOptions, deadline: CallDeadline): Promise<unknown> {
  const observer = options.observer;
  if (observer === undefined) return attempt(jsonRequest, options, deadline);
  const startedAt = performance.now();
  const where = { service: jsonRequest.service, endpoint: jsonRequest.endpoint };
  try {
    const json = await attempt(jsonRequest, options, deadline);
    observer.attemptFinished({ ...where, durationMs: performance.now() - startedAt, status: 200 });
    return json;
  } catch (error) {
    observer.attemptFinished({ ...where, durationMs: performance.now() - startedAt, ...describeFailure(error) });
    throw error;
  }
}

function describeFailure(error: unknown): Pick<HttpAttempt, 'status' | 'failure' | 'retryAfterSeconds'> {
  if (!(error instanceof UpstreamError)) return { failure: 'network' };
  if (error.kind === 'timeout') return { failure: 'timeout' };
  if (error.status === undefined) return { failure: 'network' };
  return error.retryAfterSeconds === undefined
    ? { status: error.status }
    : { status: error.status, retryAfterSeconds: error.retryAfterSeconds };
}

async function attempt(jsonRequest: JsonRequest, options: ResolvedOptions, deadline: CallDeadline): Promise<unknown> {
  const where = { service: jsonRequest.service, endpoint: jsonRequest.endpoint };
  const signal = deadline.signal();
  let answer: Answer;
  try {
    answer = await exchange(options.dispatcher, toExchange(jsonRequest), signal, options.maxResponseBytes);
  } catch (error) {
    throw transportFailure(where, error, signal, deadline.timeoutMs);
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw httpFailure(where, answer, options.now ?? Date.now, options.maxRetryAfterSeconds);
  }
  if (answer.unreadable !== undefined) {
    throw new UpstreamError({ ...where, kind: 'bad_response', status: answer.status, reason: answer.unreadable });
  }
  if (answer.text.trim() === '') {
    // A 200 without a body is an answer of its own (the live dashboard's way of saying "unknown metric"): the caller decides.
    if (answer.status === 200) return undefined;
    // A 204 (or any other bodiless 2xx) is nothing the contract promises: never taken for that 200.
    throw new UpstreamError({ ...where, kind: 'bad_response', status: answer.status, reason: `answered ${answer.status} without a body` });
  }
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new UpstreamError({ ...where, kind: 'bad_response', status: answer.status, reason: 'body is not valid JSON' });
  }
}

function toExchange(jsonRequest: JsonRequest): Exchange {
  const headers: Record<string, string> = { accept: 'application/json', ...jsonRequest.headers };
  if (jsonRequest.body !== undefined) headers['content-type'] = 'application/json';
  const body = jsonRequest.body === undefined ? null : JSON.stringify(jsonRequest.body);
  return { url: jsonRequest.url, method: jsonRequest.method, headers, body };
}

function transportFailure(
  where: Pick<JsonRequest, 'service' | 'endpoint'>,
  error: unknown,
  signal: DeadlineTick,
  timeoutMs: number,
): UpstreamError {
  const code = errorCode(error);
  if (signal.aborted || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return new UpstreamError({ ...where, kind: 'timeout', timeoutMs });
  }
  return new UpstreamError({ ...where, kind: 'network', reason: code ?? 'connection failed' });
}

function httpFailure(
  where: Pick<JsonRequest, 'service' | 'endpoint'>,
  answer: Answer,
  now: () => number,
  maxRetryAfterSeconds: number,
): UpstreamError {
  const body = parseErrorBody(answer.text);
  const retryAfterSeconds = parseRetryAfter(answer.headers['retry-after'], now(), maxRetryAfterSeconds);
  return new UpstreamError({
    ...where,
    kind: 'http',
    status: answer.status,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...body,
  });
}

/**
 * Error bodies are `{"msg": ..., "errors": [...]}` per the contract, but a
 * proxy in between may answer HTML or nothing: anything else is ignored
 * rather than turned into a second error.
 */
function parseErrorBody(text: string): { upstreamMessage?: string; upstreamErrors?: UpstreamFieldError[] } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isRecord(body)) return {};
  const parsed: { upstreamMessage?: string; upstreamErrors?: UpstreamFieldError[] } = {};
  const message = typeof body.msg === 'string' ? body.msg : body.message;
  if (typeof message === 'string') parsed.upstreamMessage = message;
  if (Array.isArray(body.errors)) parsed.upstreamErrors = body.errors.filter(isRecord).map(toFieldError);
  return parsed;
}

function toFieldError(entry: Record<string, unknown>): UpstreamFieldError {
  const fieldError: UpstreamFieldError = {};
  if (typeof entry.path === 'string') fieldError.path = entry.path;
  if (typeof entry.message === 'string') fieldError.message = entry.message;
  return fieldError;
}

function errorCode(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
