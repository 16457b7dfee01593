import { TokenProvider } from '../../src/auth/tokenProvider';
import { REPORTING_SIGN_IN_ERRORS } from '../../src/upstream/datasources/signInErrors';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const MINUTE = 60_000;
/** The configuration's defaults, as createUpstreams passes them when nothing is set. */
const SETTINGS = { ...UPSTREAM_PATH_DEFAULTS.tokenRenewal, signInBackoff: SIGN_IN_BACKOFF_DEFAULTS };
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = Date.parse('2026-11-21T10:00:00Z');

/** An unsigned JWT: the provider only decodes, it never verifies. */
function jwt(claims: Record<string, unknown>): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}.c2lnbmF0dXJl`;
}

/** A deferred sign-in per call, so tests decide when and how each one ends. */
function scriptedSignIn() {
  const calls: { resolve: (token: string) => void; reject: (error: Error) => void }[] = [];
  const signIn = jest.fn(
    () =>
      new Promise<string>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
  );
  return { signIn, calls };
}

/** A sign-in that succeeds at once with token-1, token-2, ... */
function countingSignIn(makeToken: (n: number) => string = (n) => `token-${n}`) {
  let count = 0;
  return jest.fn(async () => {
    count += 1;
    return makeToken(count);
  });
}

describe('TokenProvider', () => {
  let now: number;
  const clock = () => now;

  beforeEach(() => {
    now = START;
  });

  test('signs in on the first call and reuses the token afterwards', async () => {
    const signIn = countingSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });

    expect(signIn).not.toHaveBeenCalled();
    await expect(tokens.getToken()).resolves.toBe('token-1');
    now += DAY;
    await expect(tokens.getToken()).resolves.toBe('token-1');
    await expect(tokens.getToken()).resolves.toBe('token-1');
    expect(signIn).toHaveBeenCalledTimes(1);
  });

  test('renews before the JWT exp, by the safety margin', async () => {
    const signIn = countingSignIn((n) => jwt({ sub: String(n), exp: (now + 2 * HOUR) / 1000 }));
    const tokens = new TokenProvider({
      ...SETTINGS,
      errors: REPORTING_SIGN_IN_ERRORS,
      signIn,
      now: clock,
      safetyMarginMs: 5 * MINUTE,
    });
    const first = await tokens.getToken();

    now = START + 2 * HOUR - 5 * MINUTE - 1;
    await expect(tokens.getToken()).resolves.toBe(first);
    now = START + 2 * HOUR - 5 * MINUTE;
    const second = await tokens.getToken();

    expect(second).not.toBe(first);
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test('uses exp - iat as the lifetime, so a skewed upstream clock does not matter', async () => {
    const upstreamNow = START / 1000 + 30 * 24 * 3600;
    const signIn = countingSignIn(() => jwt({ iat: upstreamNow, exp: upstreamNow + 3600 }));
    const tokens = new TokenProvider({
      ...SETTINGS,
      errors: REPORTING_SIGN_IN_ERRORS,
      signIn,
      now: clock,
      safetyMarginMs: 5 * MINUTE,
    });
    await tokens.getToken();

    now = START + 54 * MINUTE;
    await tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(1);
    now = START + 55 * MINUTE;
    await tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test('caps the margin at a tenth of a short lifetime instead of signing in on every call', async () => {
    const signIn = countingSignIn(() => jwt({ iat: now / 1000, exp: now / 1000 + 60 }));
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });
    await tokens.getToken();

    now = START + 53_999;
    await tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(1);
    now = START + 54_000;
    await tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test.each([
    ['an opaque token', 'opaque-token'],
    ['a JWT without exp', jwt({ sub: '1' })],
    ['a JWT with a garbage payload', 'eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln'],
  ])('falls back to 14 days from sign-in for %s', async (_label, token) => {
    const signIn = jest.fn(async () => token);
    const tokens = new TokenProvider({
      ...SETTINGS,
      errors: REPORTING_SIGN_IN_ERRORS,
      signIn,
      now: clock,
      safetyMarginMs: HOUR,
    });
    await tokens.getToken();

    now = START + 14 * DAY - HOUR - 1;
    await tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(1);
    now = START + 14 * DAY - HOUR;
    await tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test('50 concurrent callers share exactly one sign-in', async () => {
    const { signIn, calls } = scriptedSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });

    const waiting = Array.from({ length: 50 }, () => tokens.getToken());
    calls[0].resolve('shared');

    await expect(Promise.all(waiting)).resolves.toEqual(Array(50).fill('shared'));
    expect(signIn).toHaveBeenCalledTimes(1);
  });

  test("a failure that is not the upstream's answer rejects every waiter and is not remembered: the next call tries again", async () => {
    const { signIn, calls } = scriptedSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });

    const waiting = Array.from({ length: 5 }, () => tokens.getToken());
    calls[0].reject(new Error('Invalid credentials'));
    const outcomes = await Promise.allSettled(waiting);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill('rejected'));
    const retry = tokens.getToken();
    expect(signIn).toHaveBeenCalledTimes(2);
    calls[1].resolve('second-try');
    await expect(retry).resolves.toBe('second-try');
  });

  test('renew(rejected) when a newer token is already current does not sign in', async () => {
    const signIn = countingSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });
    const old = await tokens.getToken();
    const current = await tokens.renew(old);
    expect(signIn).toHaveBeenCalledTimes(2);

    await expect(tokens.renew(old)).resolves.toBe(current);
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test('renew(current) from many concurrent callers signs in exactly once', async () => {
    const signIn = countingSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });
    const rejected = await tokens.getToken();

    const renewed = await Promise.all(Array.from({ length: 20 }, () => tokens.renew(rejected)));

    expect(new Set(renewed)).toEqual(new Set(['token-2']));
    expect(signIn).toHaveBeenCalledTimes(2);
    await expect(tokens.getToken()).resolves.toBe('token-2');
  });

  test('renew() during a sign-in in flight joins it', async () => {
    const { signIn, calls } = scriptedSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });

    const first = tokens.getToken();
    const renewed = tokens.renew('whatever');
    calls[0].resolve('only');

    await expect(Promise.all([first, renewed])).resolves.toEqual(['only', 'only']);
    expect(signIn).toHaveBeenCalledTimes(1);
  });

  test('a token refused right after the sign-in that replaced a refused one starts the sign-in backoff instead of a loop', async () => {
    const signIn = countingSignIn();
    const tokens = new TokenProvider({
      ...SETTINGS,
      errors: REPORTING_SIGN_IN_ERRORS,
      signIn,
      now: clock,
      signInBackoff: { ...SIGN_IN_BACKOFF_DEFAULTS, refusedBaseMs: MINUTE },
    });
    await tokens.getToken();
    await expect(tokens.renew('token-1')).resolves.toBe('token-2');

    expect(tokens.refused('token-2')).toBe(true);

    expect(tokens.signInState()).toMatchObject({ state: 'backing_off', reason: 'refused', retryAfterSeconds: 60 });
    // The refused token is not handed out again, and no one signs in before the backoff ends.
    await expect(tokens.getToken()).rejects.toMatchObject({
      kind: 'http',
      status: 401,
      endpoint: '/api/dashboard/query',
      retryAfterSeconds: 60,
    });
    await expect(tokens.renew('token-2')).rejects.toMatchObject({ status: 401 });
    expect(signIn).toHaveBeenCalledTimes(2);
    now += MINUTE;
    await expect(tokens.getToken()).resolves.toBe('token-3');
    expect(signIn).toHaveBeenCalledTimes(3);
  });

  test('only the token obtained for the refusal, while current, can start that backoff', async () => {
    const signIn = countingSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });
    await tokens.getToken();

    expect(tokens.refused('token-1')).toBe(false); // the first token: obtained for no refusal
    await tokens.renew('token-1');
    await tokens.renew('token-2'); // token-2 served until revoked; token-3 replaced it
    expect(tokens.refused('token-2')).toBe(false);

    expect(tokens.signInState()).toEqual({ state: 'ok' });
    await expect(tokens.getToken()).resolves.toBe('token-3');
    expect(signIn).toHaveBeenCalledTimes(3);
  });

  test('a renewed token that served a call simply expires: a later 401 on it renews, never backs off', async () => {
    const signIn = countingSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });
    await tokens.getToken();
    await expect(tokens.renew('token-1')).resolves.toBe('token-2');

    tokens.served('token-2');

    expect(tokens.refused('token-2')).toBe(false);
    expect(tokens.signInState()).toEqual({ state: 'ok' });
    await expect(tokens.renew('token-2')).resolves.toBe('token-3');
    expect(signIn).toHaveBeenCalledTimes(3);
  });

  test('a failed renewal leaves no token behind: the next getToken signs in', async () => {
    const { signIn, calls } = scriptedSignIn();
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn, now: clock });
    const first = tokens.getToken();
    calls[0].resolve('revoked');
    await first;

    const renewal = tokens.renew('revoked');
    calls[1].reject(new Error('down'));
    await expect(renewal).rejects.toThrow('down');
    const next = tokens.getToken();
    calls[2].resolve('fresh');

    await expect(next).resolves.toBe('fresh');
    expect(signIn).toHaveBeenCalledTimes(3);
  });
});

describe('TokenProvider on the real clock (jest fake timers)', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  test('with its default clock, renews an hour before a 14-day exp and not before', async () => {
    jest.useFakeTimers({ now: START });
    const signIn = countingSignIn((n) => jwt({ sub: String(n), iat: Date.now() / 1000, exp: (Date.now() + 14 * DAY) / 1000 }));
    const tokens = new TokenProvider({ ...SETTINGS, errors: REPORTING_SIGN_IN_ERRORS, signIn });
    const first = await tokens.getToken();

    jest.setSystemTime(START + 14 * DAY - HOUR - 1);
    await expect(tokens.getToken()).resolves.toBe(first);
    jest.setSystemTime(START + 14 * DAY - HOUR);
    const second = await tokens.getToken();

    expect(second).not.toBe(first);
    expect(signIn).toHaveBeenCalledTimes(2);
  });
});
