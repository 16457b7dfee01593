/**
 * Sign-in stubs and tokens for the token provider suites: JWTs with a chosen
 * lifetime, sign-ins the test settles by hand, and the upstream errors a
 * refused or unavailable sign-in produces.
 */
import { SIGN_IN_PATH } from '../../src/kernel/wire';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { deferred } from './deferred';

/** An unsigned JWT: the provider only decodes, it never verifies. */
function jwt(claims: Record<string, unknown>): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}.c2lnbmF0dXJl`;
}

/** A JWT issued at `issuedAtMs` that lives `lifetimeSeconds`, told apart by `sub`. */
export function jwtLiving(lifetimeSeconds: number, issuedAtMs: number, sub: string): string {
  const iat = Math.floor(issuedAtMs / 1000);
  return jwt({ sub, iat, exp: iat + lifetimeSeconds });
}

/** What the reporting host answers to a wrong password (the sign-in's own error, as createSignIn throws it). */
export function refusedSignIn(status = 401): UpstreamError {
  return new UpstreamError({ service: 'reporting', endpoint: SIGN_IN_PATH, kind: 'http', status, upstreamMessage: 'Invalid credentials' });
}

export function unavailableSignIn(status = 503): UpstreamError {
  return new UpstreamError({ service: 'reporting', endpoint: SIGN_IN_PATH, kind: 'http', status });
}

/**
 * A sign-in whose every call the test can hold and settle: `calls[i]`
 * resolves or rejects call i. `auto` settles new calls at once instead
 * (token-1, token-2, ... or the thrown error) until the test holds them again.
 */
export function scriptedSignIn() {
  const calls: ReturnType<typeof deferred<string>>[] = [];
  let auto: ((n: number) => string | Error) | undefined;
  const signIn = jest.fn(() => {
    const call = deferred<string>();
    calls.push(call);
    const outcome = auto?.(calls.length);
    if (outcome instanceof Error) call.reject(outcome);
    else if (outcome !== undefined) call.resolve(outcome);
    return call.promise;
  });
  return {
    signIn,
    calls,
    /** Settles every later call at once with `outcome(n)` (n counts from 1); `undefined` holds them again. */
    answerWith(outcome: ((n: number) => string | Error) | undefined) {
      auto = outcome;
    },
  };
}
