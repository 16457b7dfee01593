import type { HttpClient } from '../transport/httpClient';
import { isRecord } from '../transport/typeGuards';
import { buildUrl } from '../transport/url';
import { UpstreamError } from '../failures/upstreamError';
import type { Secret } from '../../redaction/secret';
import type { SignInRequest } from './wire';

export const SIGN_IN_PATH = '/api/user/signin';

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
    if (!isRecord(json) || typeof json.token !== 'string' || json.token === '') {
      throw new UpstreamError({
        service: 'reporting',
        endpoint: SIGN_IN_PATH,
        kind: 'bad_response',
        reason: 'no token in the sign-in response',
      });
    }
    return json.token;
  };
}
