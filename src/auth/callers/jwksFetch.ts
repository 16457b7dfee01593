import type { JSONWebKeySet } from 'jose';

/** Why the signing keys could not be had: never the caller's fault (503 with Retry-After, never 401). */
export class JwksUnavailable extends Error {
  constructor(
    /** What went wrong, in words for the log line and the 503 (never a key). */
    readonly problem: string,
    /** Seconds until the next fetch may be tried: the 503's Retry-After. */
    readonly retryAfterSeconds = 1,
  ) {
    super(`the signing keys (JWKS) could not be fetched: ${problem}`);
    this.name = 'JwksUnavailable';
  }
}

export interface JwksFetchLimits {
  /** The whole fetch, the body included: an endpoint that answers its headers and then stalls is a failure too. */
  timeoutMs: number;
  /** A key set is a few kilobytes: a body past this is not read further. */
  maxBytes: number;
}

/**
 * One GET of a JWKS endpoint, every failure a JwksUnavailable naming it: a
 * status other than 200 (redirects are not followed, as jose does not), no
 * answer in time, a body over the cap (the reading stops there, the
 * connection is dropped), a body that is not JSON or holds no `keys` array
 * of objects. jose's own fetch reads any body whole and times out only the
 * wait for the headers, hence this one.
 */
export async function fetchKeySet(url: string, limits: JwksFetchLimits): Promise<JSONWebKeySet> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const late = `no answer within ${limits.timeoutMs} ms`;
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json' } });
  } catch (error) {
    throw new JwksUnavailable(signal.aborted ? late : `unreachable (${causeOf(error)})`);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new JwksUnavailable(`the endpoint answered HTTP ${response.status}`);
  }
  let text: string;
  try {
    text = await cappedText(response, limits.maxBytes);
  } catch (error) {
    if (error instanceof JwksUnavailable) throw error;
    throw new JwksUnavailable(signal.aborted ? late : `the body could not be read (${causeOf(error)})`);
  }
  return keySetOf(text);
}

/** The body as text, read only up to `maxBytes`: past it, the stream is cancelled (the connection dropped) and nothing more is read. */
async function cappedText(response: Response, maxBytes: number): Promise<string> {
  const over = () => new JwksUnavailable(`the body is over ${maxBytes} bytes`);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw over();
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw over();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function keySetOf(text: string): JSONWebKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new JwksUnavailable('the body is not JSON');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || !keys.every((key) => key !== null && typeof key === 'object' && !Array.isArray(key))) {
    throw new JwksUnavailable('the body holds no "keys" array of keys');
  }
  return { keys: keys as JSONWebKeySet['keys'] };
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return cause instanceof Error ? cause.message : String(cause);
}
