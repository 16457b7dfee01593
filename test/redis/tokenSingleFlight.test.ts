/**
 * One sign-in per lapse across the cluster, every time: several
 * SharedTokenProviders ("replicas", one connection each) on one real
 * redis-server. The interleavings that used to make a second sign-in are
 * forced, not hoped for: Redis commands of one replica are held at a gate
 * or delayed by a seeded random amount, and sign-ins end when the test says.
 */
import type { Redis } from 'ioredis';
import { SharedTokenProvider } from '../../src/redis/upstream/sharedTokenProvider';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { deferred } from '../support/deferred';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import type { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { jwtLiving, refusedSignIn, scriptedSignIn } from '../support/tokenFixtures';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const MINUTE = 60_000;
const START = Date.parse('2026-11-21T10:00:00Z');
const THIRTY_MINUTES_S = 30 * 60;

/** Runs before each Redis command of one replica; may hold it (a gate) or delay it. */
type CommandHook = (command: string, args: unknown[]) => Promise<void>;

const quietLogger = { info: () => {}, warn: () => {} };

describeWithRedis('one sign-in per lapse across replicas', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  let now: number;

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    now = START;
    const admin = createRedisClient({ url: new Secret(server.url), keyPrefix: '', timeoutMs: 1_000 });
    clients.push(admin);
    await awaitReady(admin);
    await admin.flushall();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });

  /** A replica whose Redis commands pass through `hook` first. */
  async function replica(signIn: () => Promise<string>, hook: CommandHook = async () => {}): Promise<SharedTokenProvider> {
    const client = createRedisClient({ url: new Secret(server.url), keyPrefix: 'flight:', timeoutMs: 2_000 });
    clients.push(client);
    await awaitReady(client);
    const hooked = new Proxy(client, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        if (typeof property !== 'string' || !['get', 'mget', 'set', 'eval', 'del', 'multi'].includes(property)) return value.bind(target);
        return async (...args: unknown[]) => {
          await hook(property, args);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const redis = new SharedRedis({
      ...REDIS_STATE_DEFAULTS.sharedRedis,
      client: hooked,
      logger: quietLogger,
      retryAfterMs: 0,
      timeoutMs: 2_000,
    });
    return new SharedTokenProvider({
      ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
      signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
      signIn,
      redis,
      lockMs: 5_000,
      pollMs: 2,
      now: () => now,
    });
  }

  /** Holds this replica's attempt to take the renewal lock until `open()`; `reached` resolves when it gets there. */
  function lockGate() {
    const reached = deferred<void>();
    const opened = deferred<void>();
    const hook: CommandHook = async (command, args) => {
      if (command !== 'set' || !args.includes('NX') || !String(args[0]).endsWith(':renewing')) return;
      reached.resolve();
      await opened.promise;
    };
    return { hook, reached: reached.promise, open: () => opened.resolve() };
  }

  test.each([
    ['after a 401 (renew)', (tokens: SharedTokenProvider, old: string) => tokens.renew(old)],
    [
      'at the renewal time (getToken)',
      (tokens: SharedTokenProvider) => {
        now = START + 27 * MINUTE;
        return tokens.getToken();
      },
    ],
  ])(
    '%s: a replica that read the old token just before another one renewed and released the lock does not sign in again',
    async (_when, lapse) => {
      const script = scriptedSignIn();
      script.answerWith((n) => jwtLiving(THIRTY_MINUTES_S, now, `t${n}`));
      const gate = lockGate();
      const [a, b] = [await replica(script.signIn), await replica(script.signIn, gate.hook)];
      const old = await a.getToken();
      await expect(b.getToken()).resolves.toBe(old);

      script.answerWith(undefined);
      const renewedByA = lapse(a, old);
      await waitFor(() => script.calls.length === 2); // A holds the lock and is signing in
      const renewedByB = lapse(b, old);
      await gate.reached; // B has read the old token and is about to ask for the lock
      script.calls[1].resolve(jwtLiving(THIRTY_MINUTES_S, now, 'fresh'));
      const fresh = await renewedByA; // A has published the new token and released the lock
      script.answerWith((n) => jwtLiving(THIRTY_MINUTES_S, now, `extra-${n}`));
      gate.open();

      await expect(renewedByB).resolves.toBe(fresh);
      expect(script.signIn).toHaveBeenCalledTimes(2);
    },
  );

  test('40 lapses (expiry and 401, alternating) with 60 operations over 3 replicas and seeded random delays: one sign-in each', async () => {
    const random = mulberry32(15);
    const jitter: CommandHook = async () => {
      const turns = Math.floor(random() * 4);
      for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    let signIns = 0;
    const signIn = async () => {
      signIns += 1;
      const issued = jwtLiving(THIRTY_MINUTES_S, now, `t${signIns}`);
      await jitter('signIn', []);
      return issued;
    };
    const replicas = [await replica(signIn, jitter), await replica(signIn, jitter), await replica(signIn, jitter)];
    let current = await replicas[0].getToken();
    const perLapse: number[] = [];
    const distinctTokensPerLapse: number[] = [];

    for (let lapse = 0; lapse < 40; lapse += 1) {
      const before = signIns;
      const byExpiry = lapse % 2 === 0;
      if (byExpiry) now += 27 * MINUTE;
      const refused = current;
      const tokens = await Promise.all(
        Array.from({ length: 60 }, (_, index) => {
          const tokensOf = replicas[index % 3];
          return byExpiry ? tokensOf.getToken() : tokensOf.renew(refused);
        }),
      );
      perLapse.push(signIns - before);
      distinctTokensPerLapse.push(new Set(tokens).size);
      current = tokens[tokens.length - 1];
    }

    expect(perLapse).toEqual(Array(40).fill(1));
    expect(distinctTokensPerLapse).toEqual(Array(40).fill(1));
  });
  describe('a failed sign-in shared across replicas', () => {
    test('30 operations over 3 replicas with refused credentials make 1 sign-in attempt; after the backoff one replica tries again', async () => {
      now = START;
      const script = scriptedSignIn();
      script.answerWith(() => refusedSignIn(401));
      const cluster = await Promise.all([1, 2, 3].map(() => replica(script.signIn)));
      await cluster[0].getToken().catch(() => undefined);

      const errors: UpstreamError[] = [];
      for (let operation = 0; operation < 30; operation += 1) {
        now += 1_000;
        errors.push((await cluster[operation % 3].getToken().catch((error: unknown) => error)) as UpstreamError);
      }

      expect(script.signIn).toHaveBeenCalledTimes(1);
      expect(errors.map((error) => [error.status, error.retryAfterSeconds])).toEqual(
        Array.from({ length: 30 }, (_, index) => [401, 59 - index]),
      );
      expect(cluster.map((tokens) => tokens.signInState().state)).toEqual(['backing_off', 'backing_off', 'backing_off']);

      now = START + 60_000;
      script.answerWith((n) => `token-${n}`);
      const tokens = await Promise.all(Array.from({ length: 30 }, (_, index) => cluster[index % 3].getToken()));
      expect(new Set(tokens)).toEqual(new Set(['token-2']));
      expect(script.signIn).toHaveBeenCalledTimes(2);
      expect(cluster.map((replica) => replica.signInState())).toEqual([{ state: 'ok' }, { state: 'ok' }, { state: 'ok' }]);
    });
  });

  /** A small seeded PRNG: the same interleavings on every run. */
  function mulberry32(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
  }

  async function waitFor(condition: () => boolean): Promise<void> {
    for (let turn = 0; !condition(); turn += 1) {
      if (turn > 10_000) throw new Error('condition never held');
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
});
