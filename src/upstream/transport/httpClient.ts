import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff';
import { DeadlineSlots } from './deadlines';
import { DEFAULT_MAX_RESPONSE_BYTES, readBodyText, UnreadableBody } from './responseBody';
import { DEFAULT_MAX_RETRY_AFTER_SECONDS, parseRetryAfter } from './retryAfter';
import { isRecord } from './typeGuards';
import { UpstreamError, type UpstreamFieldError, type UpstreamService } from '../failures/upstreamError';

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

/** Per call: how the caller takes part in the call's retries. */
export interface CallOptions {
  /**
   * Asked before each retry (not before the first attempt), with the
   * milliseconds left of the call's deadline: the rate governor takes the
   * retry's own unit of budget here. A rejection means the retry may not be
   * sent; the caller then gets the error of the attempt before it.
   */
  beforeRetry?: (remainingMs: number) => Promise<void>;
}

export interface HttpLogger {
  warn(details: object, message: string): void;
}

export interface HttpClientOptions {
  dispatcher: Dispatcher;
  /** Budget for the whole call, retries and their backoff included. */
  timeoutMs: number;
  logger?: HttpLogger;
  /** Clock for HTTP-date `Retry-After` values. */
  now?: () => number;
  /** How often and how long to wait before retrying; DEFAULT_BACKOFF unless given. */
  backoff?: BackoffOptions;
  /** Shared call deadlines; one per client unless given. */
  deadlines?: DeadlineSlots;
  /** Told about every attempt (retries included), e.g. to record metrics. */
  observer?: HttpObserver;
  /** Largest body read from the upstream, after decoding (UPSTREAM_MAX_RESPONSE_BYTES). Default 8 MiB. */
  maxResponseBytes?: number;
  /** `Retry-After` values are clamped to this many seconds (MAX_RETRY_AFTER_SECONDS). Default 300. */
  maxRetryAfterSeconds?: number;
  /** How the pause before a retry is waited out. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** One finished attempt: where, how long, and the status or the failure kind. Never the URL. */
export interface HttpAttempt {
  service: UpstreamService;
  endpoint: string;
  durationMs: number;
  status?: number;
  failure?: 'timeout' | 'network';
  retryAfterSeconds?: number;
}

export interface HttpObserver {
  attemptFinished(attempt: HttpAttempt): void;
}

type ResolvedOptions = HttpClientOptions & {
  backoff: BackoffOptions;
  deadlines: DeadlineSlots;
  maxResponseBytes: number;
  maxRetryAfterSeconds: number;
  sleep: (ms: number) => Promise<void>;
};

/**
 * Statuses where a second attempt can plausibly succeed: a proxy or load
 * balancer in front of the upstream failed (502, 504) or the upstream is
 * momentarily overloaded or restarting (503). A 500 is the upstream's own bug
 * for this request and would fail again; a 4xx is about the request itself.
 */
const RETRYABLE_STATUSES = new Set([502, 503, 504]);

/**
 * The connection was established and then dropped before an answer. The usual
 * cause is a keep-alive socket the server closed while it sat idle in our pool,
 * which a fresh socket fixes. A refused connection or a DNS failure is not
 * here: nothing is listening, and an immediate retry would fail the same way.
 */
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const resolved: ResolvedOptions = {
    ...options,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    deadlines: options.deadlines ?? new DeadlineSlots(),
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS,
    sleep: options.sleep ?? sleep,
  };
  return { requestJson: (jsonRequest, call) => requestJson(jsonRequest, resolved, call) };
}

/**
 * Retries only requests that are safe to repeat (GET, or a POST marked
 * idempotent) after a failure that another attempt can fix (see
 * RETRYABLE_STATUSES and RETRYABLE_NETWORK_CODES), at most
 * `backoff.retries` times, after a jittered exponential pause, and only when
 * that pause ends before the call's deadline, and only once `beforeRetry`
 * (the rate governor) lets it go: every retry is one more request the
 * upstream counts, so it spends its own unit of budget or is not sent.
 * Timeouts are never retried:
 * the caller has already waited the whole budget, and a slow upstream is made
 * slower by doubling its load. A 429 is not retried here (the caller's rate
 * governor owns the budget).
 */
async function requestJson(jsonRequest: JsonRequest, options: ResolvedOptions, call: CallOptions = {}): Promise<unknown> {
  const signal = options.deadlines.signalFor(options.timeoutMs);
  const deadlineAt = performance.now() + options.timeoutMs;
  for (let retry = 0; ; retry++) {
    try {
      return await observedAttempt(jsonRequest, options, signal);
    } catch (error) {
      if (!(error instanceof UpstreamError) || !isRetryable(jsonRequest, error) || retry >= options.backoff.retries) throw error;
      const delayMs = backoffDelayMs(retry, options.backoff);
      // A retry is worth its unit of the rate only with time left to answer: a quarter of the call's timeout.
      const sendBy = deadlineAt - options.timeoutMs / 4;
      if (performance.now() + delayMs >= sendBy) throw error;
      const waitStartedAt = performance.now();
      if (!(await mayRetry(call, sendBy - waitStartedAt))) throw error;
      options.logger?.warn(
        {
          service: error.service,
          endpoint: error.endpoint,
          status: error.status,
          reason: error.reason,
          retry: retry + 1,
          delayMs: Math.round(delayMs),
        },
        'upstream request failed; retrying after a pause',
      );
      // The budget's wait and the backoff overlap: the retry goes once both are over.
      await options.sleep(Math.max(0, delayMs - (performance.now() - waitStartedAt)));
    }
  }
}

async function mayRetry(call: CallOptions, remainingMs: number): Promise<boolean> {
  if (call.beforeRetry === undefined) return true;
  try {
    await call.beforeRetry(remainingMs);
    return true;
  } catch {
    return false;
  }
}

function isRetryable(jsonRequest: JsonRequest, error: UpstreamError): boolean {
  if (jsonRequest.method !== 'GET' && jsonRequest.idempotent !== true) return false;
  if (error.kind === 'http') return error.status !== undefined && RETRYABLE_STATUSES.has(error.status);
  if (error.kind === 'network') return error.reason !== undefined && RETRYABLE_NETWORK_CODES.has(error.reason);
  return false;
}

/** `attempt`, reported to the observer however it ends. */
async function observedAttempt(jsonRequest: JsonRequest, options: ResolvedOptions, signal: AbortSignal): Promise<unknown> {
  const observer = options.observer;
  if (observer === undefined) return attempt(jsonRequest, options, signal);
  const startedAt = performance.now();
  const where = { service: jsonRequest.service, endpoint: jsonRequest.endpoint };
  try {
    const json = await attempt(jsonRequest, options, signal);
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

async function attempt(jsonRequest: JsonRequest, options: ResolvedOptions, signal: AbortSignal): Promise<unknown> {
  const where = { service: jsonRequest.service, endpoint: jsonRequest.endpoint };
  let answer: Answer;
  try {
    answer = await beforeDeadline(send(jsonRequest, options, signal), signal);
  } catch (error) {
    throw transportFailure(where, error, signal, options.timeoutMs);
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

/** A response read as far as the cap allows: `unreadable` says why the text is missing. */
interface Answer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  text: string;
  unreadable?: string;
}

async function send(jsonRequest: JsonRequest, options: ResolvedOptions, signal: AbortSignal): Promise<Answer> {
  const response = await request(jsonRequest.url, {
    dispatcher: options.dispatcher,
    method: jsonRequest.method,
    headers: buildHeaders(jsonRequest),
    body: jsonRequest.body === undefined ? null : JSON.stringify(jsonRequest.body),
    signal,
  });
  const answer = { status: response.statusCode, headers: response.headers };
  try {
    // Error bodies are read too: an unread body keeps its socket from returning to the pool.
    return { ...answer, text: await readBodyText(response.body, response.headers, options.maxResponseBytes) };
  } catch (error) {
    if (error instanceof UnreadableBody) return { ...answer, text: '', unreadable: error.reason };
    throw error;
  }
}

/**
 * undici acts on an abort only once a queued request reaches a socket: with
 * every pooled connection busy, an aborted request would keep waiting for
 * one. Racing the deadline keeps the caller's budget exact; undici drops the
 * abandoned request as soon as it is dispatched, since its signal has fired.
 */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, ONCE);
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Hoisted: listener options are otherwise a fresh object per call. */
const ONCE = { once: true } as const;

function buildHeaders(jsonRequest: JsonRequest): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', ...jsonRequest.headers };
  if (jsonRequest.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

function transportFailure(
  where: Pick<JsonRequest, 'service' | 'endpoint'>,
  error: unknown,
  signal: AbortSignal,
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
