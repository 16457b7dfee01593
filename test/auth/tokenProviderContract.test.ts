/**
 * One contract for the reporting token, run against every provider: the
 * in-process one, the Redis-shared one on a real redis-server, and the shared
 * one with Redis down (it must then behave exactly like the in-process one).
 * Time is an injected clock; sign-ins are stubs the test settles.
 */
import type { Redis } from 'ioredis';
import { SharedTokenProvider } from '../../src/redis/upstream/sharedTokenProvider';
import { TokenProvider, type SignInReason } from '../../src/auth/tokenProvider';
import { REPORTING_SIGN_IN_ERRORS } from '../../src/upstream/datasources/signInErrors';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { jwtLiving, refusedSignIn, scriptedSignIn, unavailableSignIn } from '../support/tokenFixtures';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import type { SignInBackoffOptions } from '../../src/auth/signInBackoff';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const START = Date.parse('2026-11-21T10:00:00Z');
const THIRTY_MINUTES_S = 30 * 60;

interface ProviderOptions {
  signIn: () => Promise<string>;
  now: () => number;
  onSignIn: (reason: SignInReason) => void;
  safetyMarginMs: number;
  fallbackTtlMs: number;
  signInBackoff: SignInBackoffOptions;
}

type Provider = Pick<TokenProvider, 'getToken' | 'renew' | 'signInState'>;

const quietLogger = { info: () => {}, warn: () => {} };

describeWithRedis('the token provider contract', () => {
  let server: RedisServer;
  const clients: Redis[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });

  async function sharedRedis(url: string, wait: boolean): Promise<SharedRedis> {
    const client = createRedisClient({ url: new Secret(url), keyPrefix: 'contract:', timeoutMs: 500 });
    clients.push(client);
    const redis = new SharedRedis({ ...REDIS_STATE_DEFAULTS.sharedRedis, client, logger: quietLogger, retryAfterMs: 0, timeoutMs: 500 });
    if (wait) {
      await awaitReady(client);
      await client.flushall();
    }
    return redis;
  }

  const subjects: [string, (options: ProviderOptions) => Promise<Provider>][] = [
    ['in process', async (options) => new TokenProvider({ ...options, errors: REPORTING_SIGN_IN_ERRORS })],
    [
      'shared through Redis',
      async (options) => new SharedTokenProvider({ ...options, redis: await sharedRedis(server.url, true), lockMs: 2_000, pollMs: 5 }),
    ],
    [
      'shared, Redis down',
      // Nothing listens on port 1: every command fails at once and the provider is on its own.
      async (options) =>
        new SharedTokenProvider({ ...options, redis: await sharedRedis('redis://127.0.0.1:1', false), lockMs: 2_000, pollMs: 5 }),
    ],
  ];

  describe.each(subjects)('%s', (_name, make) => {
    let now: number;
    let reasons: SignInReason[];
    let script: ReturnType<typeof scriptedSignIn>;
    let tokens: Provider;

    beforeEach(async () => {
      now = START;
      reasons = [];
      script = scriptedSignIn();
      tokens = await make({
        ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
        signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
        signIn: script.signIn,
        now: () => now,
        onSignIn: (reason) => reasons.push(reason),
      });
    });

    /** 30-minute JWTs issued on the injected clock: token 1 is `t1`, token 2 `t2`, ... */
    const thirtyMinuteTokens = () => script.answerWith((n) => jwtLiving(THIRTY_MINUTES_S, now, `t${n}`));

    test('signs in once for 50 concurrent first callers and reuses the token', async () => {
      const waiting = Array.from({ length: 50 }, () => tokens.getToken());
      await waitFor(() => script.calls.length === 1);
      script.calls[0].resolve('shared');

      await expect(Promise.all(waiting)).resolves.toEqual(Array(50).fill('shared'));
      await expect(tokens.getToken()).resolves.toBe('shared');
      expect(script.signIn).toHaveBeenCalledTimes(1);
      expect(reasons).toEqual(['initial']);
    });

    test('renews a 30-minute token ahead of exp (at 27 minutes, a tenth before), once, and reports it as expiry', async () => {
      thirtyMinuteTokens();
      const first = await tokens.getToken();

      now = START + 27 * MINUTE - 1;
      await expect(tokens.getToken()).resolves.toBe(first);
      now = START + 27 * MINUTE;
      const renewed = await Promise.all(Array.from({ length: 20 }, () => tokens.getToken()));

      expect(new Set(renewed).size).toBe(1);
      expect(renewed[0]).not.toBe(first);
      expect(script.signIn).toHaveBeenCalledTimes(2);
      expect(reasons).toEqual(['initial', 'expiry']);
    });

    test('a token refused by the upstream is renewed once for many callers, and reported as rejected', async () => {
      thirtyMinuteTokens();
      const refused = await tokens.getToken();

      const renewed = await Promise.all(Array.from({ length: 20 }, () => tokens.renew(refused)));

      expect(new Set(renewed).size).toBe(1);
      expect(renewed[0]).not.toBe(refused);
      await expect(tokens.renew(refused)).resolves.toBe(renewed[0]);
      expect(script.signIn).toHaveBeenCalledTimes(2);
      expect(reasons).toEqual(['initial', 'rejected']);
    });

    test('30 operations with refused credentials make 1 sign-in attempt; each fails at once with the same code and retryAfter', async () => {
      script.answerWith(() => refusedSignIn(401));
      const outcomes: unknown[] = [];
      for (let operation = 0; operation < 30; operation += 1) {
        outcomes.push(await tokens.getToken().catch((error: unknown) => error));
        now += SECOND;
      }

      expect(script.signIn).toHaveBeenCalledTimes(1);
      const errors = outcomes.map((outcome) => outcome as UpstreamError);
      expect(errors.every((error) => error instanceof UpstreamError && error.status === 401 && error.kind === 'http')).toBe(true);
      expect(errors.map((error) => error.retryAfterSeconds)).toEqual(Array.from({ length: 30 }, (_, index) => 60 - index));
    });

    test('a refused sign-in is tried again after the backoff, which doubles while it keeps failing, up to 15 minutes', async () => {
      script.answerWith(() => refusedSignIn(403));
      const waits: (number | undefined)[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) {
        const error = (await tokens.getToken().catch((failure: unknown) => failure)) as UpstreamError;
        waits.push(error.retryAfterSeconds);
        now += (error.retryAfterSeconds ?? 0) * SECOND - 1;
        await expect(tokens.getToken()).rejects.toMatchObject({ status: 403, retryAfterSeconds: 1 });
        now += 1;
      }

      expect(waits).toEqual([60, 120, 240, 480, 900, 900]);
      expect(script.signIn).toHaveBeenCalledTimes(6);
    });

    test('a 5xx or an unreachable host backs off shorter: 5 s doubling to 60 s; a success ends the backoff', async () => {
      script.answerWith(() => unavailableSignIn(503));
      const waits: (number | undefined)[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) {
        const error = (await tokens.getToken().catch((failure: unknown) => failure)) as UpstreamError;
        waits.push(error.retryAfterSeconds);
        now += (error.retryAfterSeconds ?? 0) * SECOND;
      }
      expect(waits).toEqual([5, 10, 20, 40, 60, 60]);

      script.answerWith((n) => `token-${n}`);
      await expect(tokens.getToken()).resolves.toBe('token-7');
      expect(tokens.signInState()).toEqual({ state: 'ok' });
    });

    test('callers arriving while a failing sign-in is in flight share it: one attempt', async () => {
      const waiting = Array.from({ length: 15 }, () => tokens.getToken().catch((error: unknown) => error));
      await waitFor(() => script.calls.length === 1);
      script.calls[0].reject(refusedSignIn(401));

      const errors = (await Promise.all(waiting)) as UpstreamError[];
      expect(errors.map((error) => [error.status, error.retryAfterSeconds])).toEqual(Array(15).fill([401, 60]));
      expect(script.signIn).toHaveBeenCalledTimes(1);
    });

    test('the backoff state names the reason and the end, never a secret; a renewal after a refused token is backed off too', async () => {
      expect(tokens.signInState()).toEqual({ state: 'ok' });
      thirtyMinuteTokens();
      const refused = await tokens.getToken();
      script.answerWith(() => refusedSignIn(401));

      await expect(tokens.renew(refused)).rejects.toMatchObject({ status: 401, retryAfterSeconds: 60 });
      now += 10 * SECOND;
      await expect(tokens.renew(refused)).rejects.toMatchObject({ status: 401, retryAfterSeconds: 50 });
      await expect(tokens.getToken()).rejects.toMatchObject({ status: 401, retryAfterSeconds: 50 });

      const state = tokens.signInState();
      expect(state).toEqual({
        state: 'backing_off',
        reason: 'refused',
        until: new Date(START + 60 * SECOND).toISOString(),
        retryAfterSeconds: 50,
      });
      expect(JSON.stringify(state)).not.toContain(refused);
      expect(script.signIn).toHaveBeenCalledTimes(2);
    });

    test('a failure that is not an upstream answer (a bug, a budget refused locally) is not remembered', async () => {
      script.answerWith(() => new Error('unexpected'));
      await expect(tokens.getToken()).rejects.toThrow('unexpected');
      script.answerWith(
        () => new UpstreamError({ service: 'reporting', endpoint: '/api/user/signin', kind: 'budget_exhausted', retryAfterSeconds: 3 }),
      );
      await expect(tokens.getToken()).rejects.toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: 3 });
      script.answerWith(() => 'fine');
      await expect(tokens.getToken()).resolves.toBe('fine');
      expect(script.signIn).toHaveBeenCalledTimes(3);
    });
  });
});

/** Yields to the event loop until `condition` holds (the Redis round trips happen in between). */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn += 1) {
    if (turn > 10_000) throw new Error('condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
