/**
 * The shared token over a real redis-server when Redis is slow, poisoned or
 * restarting (issue 22, defects 1, 2, 5, 6): the renewal lock has an owner
 * and an end, what is read back is bounded, far expiries are clamped, and
 * every outage's recovery writes the token back.
 */
import { SharedTokenProvider, TOKEN_KEY } from '../../src/redis/upstream/sharedTokenProvider';
import { awaitReady } from '../support/redisReady';
import { MAX_TTL_MS } from '../../src/redis/connection/ttl';
import type { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { SIGN_IN_PATH } from '../../src/kernel/wire';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { eventually, redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';
import { jwtLiving } from '../support/tokenFixtures';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const NOW = Date.UTC(2026, 10, 25, 9);
const LOCK_MS = 60_000;
const FAILURE_KEY = 'test:reporting:token:signin-failure';
const LOCK_KEY = 'test:reporting:token:renewing';

describeWithRedis('the shared token in a Redis that is slow, poisoned or restarting', () => {
  const harness = redisHarness();

  function provider(redis: SharedRedis, signIn: () => Promise<string>, now: () => number = () => NOW) {
    return new SharedTokenProvider({
      ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
      signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
      signIn,
      redis,
      lockMs: LOCK_MS,
      pollMs: 5,
      now,
    });
  }

  test('a renewal lock whose SET timed out and was applied late is released behind it: the next replica signs in at once', async () => {
    const admin = await harness.admin();
    const a = await harness.replica({ timeoutMs: 100, retryAfterMs: 60_000, now: () => NOW });
    const b = await harness.replica();
    const signIns: string[] = [];
    const tokensA = provider(a.redis, async () => (signIns.push('A'), 'token-A'));
    const tokensB = provider(b.redis, async () => (signIns.push('B'), 'token-B'));

    await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
    await expect(tokensA.getToken()).resolves.toBe('token-A');
    await admin.call('CLIENT', 'UNPAUSE');

    await expect(tokensB.getToken()).resolves.toBe('token-B');
    expect(signIns).toEqual(['A', 'B']);
    expect(await admin.exists(LOCK_KEY)).toBe(0);
  });

  test('a poisoned shared failure (untilMs 1e300, a message) is bounded and never reaches the caller', async () => {
    const admin = await harness.admin();
    const b = await harness.replica();
    const poison = {
      reason: 'refused',
      untilMs: 1e300,
      streak: 1e300,
      error: { service: 'reporting', endpoint: SIGN_IN_PATH, kind: 'http', status: 401, upstreamMessage: 'POISON from Redis' },
    };
    await admin.set(FAILURE_KEY, JSON.stringify(poison));
    const signIn = jest.fn(async () => 'token-1');
    const tokens = provider(b.redis, signIn);

    const error: unknown = await tokens.getToken().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UpstreamError);
    const upstreamError = error as UpstreamError;
    expect(upstreamError.retryAfterSeconds).toBeLessThanOrEqual(15 * 60);
    expect(JSON.stringify({ ...upstreamError, message: upstreamError.message })).not.toContain('POISON');
    const state = tokens.signInState();
    expect(state).toMatchObject({ state: 'backing_off', reason: 'refused' });
    expect(Date.parse(state.state === 'backing_off' ? state.until : '')).toBeLessThanOrEqual(NOW + 15 * 60_000);
    expect(signIn).not.toHaveBeenCalled();
  });

  test('a token value that is not JSON is a miss: logged once by key (not content), replaced by a fresh sign-in', async () => {
    const admin = await harness.admin();
    const b = await harness.replica();
    await admin.set(`test:${TOKEN_KEY}`, 'junk-secret-content');
    const signIn = jest.fn(async () => 'token-1');

    await expect(provider(b.redis, signIn).getToken()).resolves.toBe('token-1');
    await expect(provider(b.redis, signIn).getToken()).resolves.toBe('token-1');

    expect(signIn).toHaveBeenCalledTimes(1);
    expect(JSON.parse((await admin.get(`test:${TOKEN_KEY}`)) ?? '{}')).toMatchObject({ token: 'token-1' });
    expect(b.logs.filter((line) => line.fields.redis === 'bad-value')).toEqual([
      expect.objectContaining({ fields: { redis: 'bad-value', key: TOKEN_KEY } }),
    ]);
    expect(JSON.stringify(b.logs)).not.toContain('junk-secret-content');
    expect(b.redis.mode()).toBe('shared');
  });

  test('a JWT with exp 1e20 is shared with a clamped TTL; no lock is left behind and the replicas stay shared', async () => {
    const admin = await harness.admin();
    const [a, b] = await Promise.all([harness.replica(), harness.replica()]);
    const signIn = jest.fn(async () => jwtLiving(1e20, NOW, 'far'));

    const token = await provider(a.redis, signIn).getToken();
    await expect(provider(b.redis, signIn).getToken()).resolves.toBe(token);

    expect(signIn).toHaveBeenCalledTimes(1);
    const ttl = await admin.pttl(`test:${TOKEN_KEY}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(MAX_TTL_MS);
    expect(await admin.exists(LOCK_KEY)).toBe(0);
    expect([a.redis.mode(), b.redis.mode()]).toEqual(['shared', 'shared']);
  });

  test('two Redis restarts within the warning interval: each outage is logged once, and each recovery writes the token back', async () => {
    const a = await harness.replica();
    const signIn = jest.fn(async () => 'token-1');
    await expect(provider(a.redis, signIn).getToken()).resolves.toBe('token-1');

    for (let restart = 0; restart < 2; restart += 1) {
      await harness.server().stop();
      await expect(a.redis.attempt((client) => client.get('probe'))).resolves.toMatchObject({ ok: false });
      await harness.server().start();
      await awaitReady(a.client);
      await eventually(
        async () => (await a.redis.attempt((client) => client.exists(TOKEN_KEY))).ok && (await a.client.exists(TOKEN_KEY)) === 1,
      );
    }
    const b = await harness.replica();
    await expect(provider(b.redis, signIn).getToken()).resolves.toBe('token-1');

    expect(signIn).toHaveBeenCalledTimes(1);
    expect(a.logs.filter((line) => line.fields.redis !== 'refused').map((line) => [line.level, line.fields.redis])).toEqual([
      ['warn', 'degraded'],
      ['info', 'shared'],
      ['warn', 'degraded'],
      ['info', 'shared'],
    ]);
  });
});
