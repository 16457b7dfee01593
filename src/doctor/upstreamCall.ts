import { errorCode } from './reachability';

export interface UpstreamAnswer {
  status: number;
  /** Seconds from a numeric `Retry-After`, when the answer carried one. */
  retryAfterSeconds: number | undefined;
  /** The raw body; an empty one means something of its own on this API (contract §2). */
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  /** The upstream's own words, scrubbed of secrets, then put on one line and shortened. */
  message: string;
}

export interface UpstreamRequest {
  url: URL;
  method: 'GET' | 'POST';
  body?: unknown;
  token?: string;
  timeoutMs: number;
  /**
   * Removes secrets from the upstream's words before they are shortened: a
   * secret cut in half by the shortening would no longer be recognised.
   */
  scrub: (text: string) => string;
}

/** The longest upstream message quoted in a line: enough to name the problem, not a whole error page. */
const MAX_QUOTED_LENGTH = 200;

/**
 * One request with node's own fetch and no retry: the doctor reports what a
 * single attempt meets, and spends no more budget than it announced.
 * Rejects only when no HTTP answer arrived, with a message naming why.
 */
export async function callUpstream(request: UpstreamRequest): Promise<UpstreamAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(request.timeoutMs),
      redirect: 'manual',
    });
    text = await response.text();
  } catch (error) {
    throw new Error(`no answer from ${request.url.origin} (${describeFetchFailure(error, request.timeoutMs)})`, { cause: error });
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  const json = parseJson(text);
  return {
    status: response.status,
    retryAfterSeconds: response.headers.has('retry-after') && Number.isFinite(retryAfter) ? retryAfter : undefined,
    text,
    json,
    message: shorten(oneLine(request.scrub(readMessage(text, json)))),
  };
}

function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (typeof error === 'object' && error !== null && 'name' in error && error.name === 'TimeoutError') {
    return `none within ${timeoutMs} ms, UPSTREAM_TIMEOUT_MS`;
  }
  // fetch's own "fetch failed" says nothing; its cause names the socket error.
  const cause = typeof error === 'object' && error !== null && 'cause' in error && error.cause !== undefined ? error.cause : error;
  return errorCode(cause);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The upstream's own words for a refusal: `msg` and any `errors`; else the body itself. */
function readMessage(text: string, json: unknown): string {
  if (typeof json === 'object' && json !== null && 'msg' in json && typeof json.msg === 'string') {
    const errors = 'errors' in json && Array.isArray(json.errors) ? json.errors.map(describeFieldError).filter((e) => e !== '') : [];
    return errors.length > 0 ? `${json.msg}: ${errors.join('; ')}` : json.msg;
  }
  return text.trim() === '' ? 'empty body' : `body: ${text}`;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

function describeFieldError(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const path = 'path' in error && typeof error.path === 'string' ? `${error.path} ` : '';
  return 'message' in error && typeof error.message === 'string' ? `${path}${error.message}` : '';
}

function shorten(text: string): string {
  return text.length > MAX_QUOTED_LENGTH ? `${text.slice(0, MAX_QUOTED_LENGTH)}…` : text;
}

/** "429 Too many requests (Retry-After 42 s)" — the status with the upstream's message. */
export function describeAnswer(answer: UpstreamAnswer): string {
  const retry = answer.retryAfterSeconds === undefined ? '' : ` (Retry-After ${answer.retryAfterSeconds} s)`;
  return `${answer.status} ${answer.message}${retry}`;
}
