import { backoffSeconds, signInState } from '../../src/auth/signInBackoff';
import { classifySignInFailure, parseSignInFailure } from '../../src/upstream/datasources/signInErrors';
import { renewalTimeMs } from '../../src/auth/tokenLifetime';
import { UpstreamError, type UpstreamErrorKind } from '../../src/kernel/failures/upstreamError';

const SIGN_IN = { service: 'reporting', endpoint: '/api/user/signin' } as const;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function failure(kind: UpstreamErrorKind, status?: number) {
  return new UpstreamError({ ...SIGN_IN, kind, ...(status === undefined ? {} : { status }) });
}

describe('which sign-in failures are remembered', () => {
  test.each([
    ['a 401 (wrong password)', failure('http', 401), 'refused'],
    ['a 403 (no API role, SSO admin)', failure('http', 403), 'refused'],
    ['a 400 (malformed email)', failure('http', 400), 'refused'],
    ['a 503', failure('http', 503), 'unavailable'],
    ['a 404 (wrong base URL)', failure('http', 404), 'unavailable'],
    ['a timeout', failure('timeout'), 'unavailable'],
    ['a refused connection', failure('network'), 'unavailable'],
    ['a 200 without a token', failure('bad_response'), 'unavailable'],
    ['a 429 (the governor pauses the budget itself)', failure('http', 429), undefined],
    ['the local budget refusal', failure('budget_exhausted'), undefined],
    ['an open breaker', failure('circuit_open'), undefined],
    ['an error that is not an upstream answer', new Error('bug'), undefined],
  ])('%s: %s', (_label, error, expected) => {
    expect(classifySignInFailure(error)).toBe(expected);
  });
});

describe('the backoff state', () => {
  const remembered = { reason: 'refused' as const, untilMs: 100_500, streak: 1, error: { ...SIGN_IN, kind: 'http' as const, status: 401 } };

  test('counts down in whole seconds and ends at `until`', () => {
    expect(signInState(remembered, 40_000)).toEqual({
      state: 'backing_off',
      reason: 'refused',
      until: new Date(100_500).toISOString(),
      retryAfterSeconds: 61,
    });
    expect(backoffSeconds(signInState(remembered, 100_499))).toBe(1);
    expect(signInState(remembered, 100_500)).toEqual({ state: 'ok' });
    expect(backoffSeconds(signInState(undefined, 0))).toBe(0);
  });

  test('a shared entry is read back only when it has the expected shape, and is scrubbed like any upstream error', () => {
    expect(parseSignInFailure(JSON.parse(JSON.stringify(remembered)))).toEqual(remembered);
    expect(parseSignInFailure({ ...remembered, reason: 'other' })).toBeUndefined();
    expect(parseSignInFailure({ ...remembered, error: { ...remembered.error, service: 'elsewhere' } })).toBeUndefined();
    expect(parseSignInFailure('garbage')).toBeUndefined();
    const echoed = parseSignInFailure({ ...remembered, error: { ...remembered.error, upstreamMessage: 'bad token Bearer abc.def.ghi' } });
    expect(JSON.stringify(echoed?.error)).not.toContain('abc.def.ghi');
    expect(echoed?.error).toMatchObject({ upstreamMessage: expect.any(String) });
  });
});

describe('the renewal time fits both documented lifetimes', () => {
  const options = { safetyMarginMs: HOUR, fallbackTtlMs: 14 * DAY };
  const token = (lifetimeSeconds: number) => {
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    return `${encode({ alg: 'HS256' })}.${encode({ iat: 1_000, exp: 1_000 + lifetimeSeconds })}.c2ln`;
  };

  test.each([
    ['30 minutes (the vendor docs): at 90%, 3 minutes before exp', 30 * 60, 27 * MINUTE],
    ['14 days (the spec): one hour before exp', 14 * 24 * 3600, 14 * DAY - HOUR],
    ['1 minute (tests): at 90%', 60, 54_000],
  ])('%s', (_label, lifetimeSeconds, renewAfterMs) => {
    expect(renewalTimeMs(token(lifetimeSeconds), 0, options)).toBe(renewAfterMs);
  });
});
