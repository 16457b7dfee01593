/**
 * A sign-in failure shared through Redis lives as long as its key and no
 * longer (issue 29, defect 2), over a real redis-server: a replica that read
 * it (or shared its own) looks again within a second, so an operator's `DEL`
 * of `reporting:token:signin-failure` ends every replica's backoff at once.
 * Only a failure a replica met itself while Redis was away is kept locally,
 * and a replica whose Redis went away keeps the backoff it had.
 */
import { SharedTokenProvider } from '../../src/redis/upstream/sharedTokenProvider';
import type { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { SIGN_IN_PATH } from '../../src/kernel/wire';
import { eventually, redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';
import { refusedSignIn } from '../support/tokenFixtures';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const START = Date.UTC(2026, 10, 27, 9);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const FAILURE_KEY = 'test:reporting:token:signin-failure';

describeWithRedis('a sign-in failure shared through Redis', () => {
  const harness = redisHarness();
  let now = START;
  beforeEach(() => {
    now = START;
  });

  function provider(redis: SharedRedis, signIn: () => Promise<string>) {
    return new SharedTokenProvider({
      ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
      signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
      signIn,
      redis,
      lockMs: 60_000,
      pollMs: 5,
      now: () => now,
    });
  }

  /** A sign-in refused until `accept()`, then answering token-1, token-2, ... */
  function credentials() {
    let accepted = false;
    let issued = 0;
    const signIn = jest.fn(async () => {
      if (!accepted) throw refusedSignIn();
      issued += 1;
      return `token-${issued}`;
    });
    return { signIn, accept: () => (accepted = true) };
  }

  const fifteenMinuteFailure = () =>
    JSON.stringify({
      reason: 'refused',
      untilMs: START + 15 * MINUTE,
      streak: 5,
      error: { service: 'reporting', endpoint: SIGN_IN_PATH, kind: 'http', status: 401 },
    });

  test("a failure read from Redis ends within a second of an operator's DEL", async () => {
    const admin = await harness.admin();
    const b = await harness.replica();
    await admin.set(FAILURE_KEY, fifteenMinuteFailure(), 'PX', 15 * MINUTE);
    const { signIn } = credentials();
    signIn.mockResolvedValue('token-after-del');
    const tokens = provider(b.redis, signIn);
    await expect(tokens.getToken()).rejects.toMatchObject({ status: 401, retryAfterSeconds: 15 * 60 });
    expect(tokens.signInState()).toMatchObject({ state: 'backing_off', reason: 'refused' });

    await admin.del(FAILURE_KEY);
    now += SECOND;

    await expect(tokens.getToken()).resolves.toBe('token-after-del');
    expect(tokens.signInState()).toEqual({ state: 'ok' });
    expect(signIn).toHaveBeenCalledTimes(1);
  });

  test('readiness follows the key too: a replica with no traffic reports ok again within a second of the DEL, with no sign-in', async () => {
    const admin = await harness.admin();
    const b = await harness.replica();
    await admin.set(FAILURE_KEY, fifteenMinuteFailure(), 'PX', 15 * MINUTE);
    const { signIn } = credentials();
    const tokens = provider(b.redis, signIn);
    await expect(tokens.getToken()).rejects.toMatchObject({ status: 401 });

    now += SECOND;
    await admin.del(FAILURE_KEY);
    now += SECOND;

    tokens.signInState(); // a readiness probe: looks at Redis again in the background
    await eventually(async () => tokens.signInState().state === 'ok');
    expect(signIn).not.toHaveBeenCalled();
  });

  test('while the key is there, the replica keeps refusing, second after second, without signing in', async () => {
    const admin = await harness.admin();
    const b = await harness.replica();
    await admin.set(FAILURE_KEY, fifteenMinuteFailure(), 'PX', 15 * MINUTE);
    const { signIn } = credentials();
    const tokens = provider(b.redis, signIn);

    for (let second = 0; second < 5; second += 1) {
      await expect(tokens.getToken()).rejects.toMatchObject({ status: 401 });
      now += SECOND;
    }

    expect(signIn).not.toHaveBeenCalled();
    expect(tokens.signInState()).toMatchObject({ state: 'backing_off', retryAfterSeconds: 15 * 60 - 5 });
  });

  test('a failure one replica met and shared: after DEL, it and the replica that read it both sign in again within a second', async () => {
    const admin = await harness.admin();
    const [a, b] = await Promise.all([harness.replica(), harness.replica()]);
    const { signIn, accept } = credentials();
    const tokensA = provider(a.redis, signIn);
    const tokensB = provider(b.redis, signIn);
    await expect(tokensA.getToken()).rejects.toMatchObject({ status: 401, endpoint: SIGN_IN_PATH });
    await expect(tokensB.getToken()).rejects.toMatchObject({ status: 401, endpoint: SIGN_IN_PATH });
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(await admin.exists(FAILURE_KEY)).toBe(1);

    accept(); // the operator fixed the account, then cleared the shared failure
    await admin.del(FAILURE_KEY);
    now += SECOND;

    await expect(Promise.all([tokensA.getToken(), tokensB.getToken()])).resolves.toEqual(['token-1', 'token-1']);
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test("looked up again, a failure keeps the vendor's words on the replica that met it; the others get kind and status only", async () => {
    const [a, b] = await Promise.all([harness.replica(), harness.replica()]);
    const { signIn } = credentials();
    const tokensA = provider(a.redis, signIn);
    const tokensB = provider(b.redis, signIn);
    await expect(tokensA.getToken()).rejects.toMatchObject({ upstreamMessage: 'Invalid credentials' });

    now += SECOND;

    await expect(tokensA.getToken()).rejects.toMatchObject({ status: 401, upstreamMessage: 'Invalid credentials' });
    const seenByB: unknown = await tokensB.getToken().catch((error: unknown) => error);
    expect(seenByB).toMatchObject({ status: 401, endpoint: SIGN_IN_PATH, upstreamMessage: undefined });
    expect(signIn).toHaveBeenCalledTimes(1);
  });

  test('a replica whose fresh token was refused backs off no longer than Redis holds no valid token: it takes the one another replica signed in for', async () => {
    const admin = await harness.admin();
    const [a, b] = await Promise.all([harness.replica(), harness.replica()]);
    let signedInA = 0;
    const signInA = jest.fn(async () => `token-${(signedInA += 1)}`);
    const signInB = jest.fn(async () => 'token-from-b');
    const tokensA = provider(a.redis, signInA);
    const tokensB = provider(b.redis, signInB);
    await expect(tokensA.getToken()).resolves.toBe('token-1');
    await expect(tokensA.renew('token-1')).resolves.toBe('token-2');
    expect(tokensA.refused('token-2')).toBe(true);
    await eventually(async () => (await admin.exists(FAILURE_KEY)) === 1);

    // The other replica meets the refused token through Redis, and backs off with the shared failure: no sign-in.
    await expect(tokensB.getToken()).resolves.toBe('token-2');
    expect(tokensB.refused('token-2')).toBe(false);
    await expect(tokensB.renew('token-2')).rejects.toMatchObject({ status: 401, endpoint: '/api/dashboard/query' });
    expect(signInB).not.toHaveBeenCalled();

    // The operator clears the failure; the other replica signs in, and the first one takes its token within a second.
    await admin.del(FAILURE_KEY);
    now += SECOND;
    await expect(tokensB.renew('token-2')).resolves.toBe('token-from-b');
    await expect(tokensA.getToken()).resolves.toBe('token-from-b');
    expect(tokensA.signInState()).toEqual({ state: 'ok' });
    expect(signInA).toHaveBeenCalledTimes(2);
  });

  test('a failure this replica met while Redis was away is kept locally until its backoff ends: no sign-in meanwhile', async () => {
    const a = await harness.replica();
    const { signIn, accept } = credentials();
    const tokens = provider(a.redis, signIn);
    await harness.server().stop();

    await expect(tokens.getToken()).rejects.toMatchObject({ status: 401, retryAfterSeconds: 60 });
    accept();
    now += 30 * SECOND;
    await expect(tokens.getToken()).rejects.toMatchObject({ status: 401, retryAfterSeconds: 30 });
    expect(signIn).toHaveBeenCalledTimes(1);

    await harness.server().start();
    now += 30 * SECOND;
    await expect(tokens.getToken()).resolves.toBe('token-1');
    expect(signIn).toHaveBeenCalledTimes(2);
  });

  test('a shared failure whose Redis went away is kept: the replica does not sign in while it cannot look', async () => {
    const admin = await harness.admin();
    const b = await harness.replica();
    await admin.set(FAILURE_KEY, fifteenMinuteFailure(), 'PX', 15 * MINUTE);
    const { signIn } = credentials();
    const tokens = provider(b.redis, signIn);
    await expect(tokens.getToken()).rejects.toMatchObject({ status: 401 });

    await harness.server().stop();
    now += 5 * SECOND;
    await expect(tokens.getToken()).rejects.toMatchObject({ status: 401, retryAfterSeconds: 15 * 60 - 5 });
    await harness.server().start();

    expect(signIn).not.toHaveBeenCalled();
  });
});
