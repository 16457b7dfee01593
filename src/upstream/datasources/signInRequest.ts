import type { HttpClient } from '../transport/httpClient';
import { isRecord } from '../transport/typeGuards';
import { buildUrl } from '../transport/url';
import { UpstreamError } from '../../kernel/failures/upstreamError';
import type { Secret } from '../../redaction/secret';
import { SIGN_IN_PATH, type SignInRequest } from '../../kernel/wire';

export interface SignInOptions {
  baseUrl: string;
  email: string;
  password: Secret;
  http: HttpClient;
}

/**
 * Returns the `signIn` function the TokenProvider calls. Sign-in is not
 * marked idempotent: it has the strictest rate budget of all endpoints, and
 * the TokenProvider already retries on the next caller's demand.
 */
export function createSignIn(options: SignInOptions): () => Promise<string> {
  const url = buildUrl(options.baseUrl, SIGN_IN_PATH);
  return async () => {
    const body: SignInRequest = { email: options.email, password: options.password.reveal() };
    let json: unknown;
    try {
      json = await options.http.requestJson({ service: 'reporting', endpoint: SIGN_IN_PATH, url, method: 'POST', body });
    } catch (error) {
      // The upstream's `msg` is shown to API clients; make sure it cannot echo the password back.
      throw error instanceof UpstreamError ? error.withSecretsRemoved([options.password.reveal()]) : error;
    }
    if (!isRecord(json) || typeof json.token !== 'string' || json.token === '') throw badSignInAnswer('no token in the sign-in response');
    const problem = findTokenProblem(json.token);
    if (problem !== undefined) throw badSignInAnswer(problem);
    return json.token;
  };
}

/** Longest token kept: every dashboard call carries it, and a larger header is refused by servers (431) or proxies. */
const MAX_TOKEN_LENGTH = 8_192;

/** Anything but visible ASCII (RFC 6750's token characters are a subset): it would end, split or garble the header. */
const NOT_HEADER_SAFE = /[^\x21-\x7e]/;

/**
 * Why the token cannot travel as `Authorization: Bearer <token>`, or undefined.
 * Checked here, once, so that such a token is the sign-in's bad answer: sent,
 * it would fail every call locally as a network error (feeding the breaker)
 * for the whole lifetime it was assumed to have. Never quotes the token.
 */
function findTokenProblem(token: string): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return `the sign-in token is longer than ${MAX_TOKEN_LENGTH} characters, too long for a header`;
  const bad = token.search(NOT_HEADER_SAFE);
  if (bad < 0) return undefined;
  return `the sign-in token is not a valid header value (character ${bad + 1} of ${token.length} is not visible ASCII)`;
}

function badSignInAnswer(reason: string): UpstreamError {
  return new UpstreamError({ service: 'reporting', endpoint: SIGN_IN_PATH, kind: 'bad_response', reason });
}
