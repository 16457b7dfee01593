/**
 * The budget over a real redis-server when Redis refuses or is away (issue
 * 22, defect 3): a refusal fails one command and is counted, never an
 * outage; a poisoned bucket is repaired; and a budget the replicas cannot
 * share is split by the replicas last seen, never spent whole by each.
 */
import { RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';
import { RedisRateStore } from '../../src/redis/upstream/redisRateStore';
import { eventually, redisHarness, type HarnessReplica } from '../support/redisHarness';
import { awaitReady } from '../support/redisReady';
import { describeWithRedis } from '../support/redisServer';

const T0 = Date.UTC(2026, 10, 25, 9);
const PER_MINUTE = 10;

describeWithRedis('the budget in a Redis that refuses or is away', () => {
  const harness = redisHarness();

  async function threeReplicas(): Promise<{ replicas: HarnessReplica[]; stores: RedisRateStore[] }> {
    const replicas = await Promise.all([harness.replica(), harness.replica(), harness.replica()]);
    // Each announces itself; the last to beat has seen all three, the others learn it at their next beat.
    for (const replica of replicas) await replica.redis.roster?.beat();
    for (const replica of replicas) await replica.redis.roster?.beat();
    return { replicas, stores: replicas.map(({ redis }) => new RedisRateStore(redis, () => T0)) };
  }

  async function grantsOfThirtyAsks(stores: RedisRateStore[]): Promise<number> {
    const asks = Array.from({ length: 30 }, (_, index) => stores[index % 3].reserve('reporting:acct', PER_MINUTE, T0, 0));
    return (await Promise.all(asks)).filter((reservation) => reservation.granted).length;
  }

  test('Redis full (maxmemory, noeviction): 3 replicas never spend more than the budget; they stay shared and count the refusals', async () => {
    const admin = await harness.admin();
    const { replicas, stores } = await threeReplicas();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');

    const granted = await grantsOfThirtyAsks(stores);

    expect(granted).toBeGreaterThan(0);
    expect(granted).toBeLessThanOrEqual(PER_MINUTE);
    expect(replicas.map(({ redis }) => redis.mode())).toEqual(['shared', 'shared', 'shared']);
    expect(replicas.flatMap(({ refusals }) => refusals)).toContain('OOM');
    expect(replicas.map(({ redis }) => redis.roster?.lastSeen())).toEqual([3, 3, 3]);
  });

  test('Redis away: each replica takes its share of the replicas it last saw, never the whole rate', async () => {
    const { replicas, stores } = await threeReplicas();
    await harness.server().stop();
    try {
      const granted = await grantsOfThirtyAsks(stores);

      expect(granted).toBeGreaterThan(0);
      expect(granted).toBeLessThanOrEqual(PER_MINUTE);
      expect(replicas.map(({ redis }) => redis.mode())).toEqual(['degraded', 'degraded', 'degraded']);
    } finally {
      await harness.server().start();
    }
  });

  test.each([
    ['a string that is not a number', (admin: import('ioredis').Redis) => admin.set('test:budget:reporting:acct', 'junk')],
    ['a number far in the future', (admin: import('ioredis').Redis) => admin.set('test:budget:reporting:acct', '1e300')],
    ['a key of another type', (admin: import('ioredis').Redis) => admin.rpush('test:budget:reporting:acct', 'junk')],
  ])('a poisoned bucket (%s) is repaired on the safe side: the replica stays shared', async (_name, poison) => {
    const admin = await harness.admin();
    await poison(admin);
    const replica = await harness.replica();
    const store = new RedisRateStore(replica.redis, () => T0);
    const interval = RATE_WINDOW_MS / PER_MINUTE;

    await expect(store.reserve('reporting:acct', PER_MINUTE, T0, 0)).resolves.toEqual({ granted: false, retryAfterMs: interval });
    await expect(store.reserve('reporting:acct', PER_MINUTE, T0, interval)).resolves.toEqual({ granted: true, waitMs: interval });

    expect(replica.redis.mode()).toBe('shared');
    expect(Number(await admin.get('test:budget:reporting:acct'))).toBe(T0 + RATE_WINDOW_MS + interval);
    expect(await admin.pttl('test:budget:reporting:acct')).toBeGreaterThan(0);
  });
});

/**
 * Redis away after the replicas saw the shared bucket (issue 29, defect 9):
 * each replica spends its share from the bucket as it last saw it, never
 * from a full bucket of its own; below one a minute the replicas take turns
 * (one request a turn for the whole cluster); and when the bucket is shared
 * again the governor's users are told.
 */
describeWithRedis('the budget after Redis went away', () => {
  const harness = redisHarness();
  const KEY = 'reporting:acct';

  async function threeReplicas(now: () => number) {
    const replicas = await Promise.all([harness.replica(), harness.replica(), harness.replica()]);
    for (const replica of replicas) await replica.redis.roster.beat();
    for (const replica of replicas) await replica.redis.roster.beat();
    const stores = replicas.map(({ redis }) => new RedisRateStore(redis, now));
    return { replicas, stores };
  }

  /** Every store asks once a second (refused at once when it has no slot) for `seconds`; the grants, in order. */
  async function askEverySecond(stores: RedisRateStore[], perMinute: number, from: number, seconds: number, clock: { at: number }) {
    const grants: { at: number; replica: number }[] = [];
    for (let second = 0; second < seconds; second += 1) {
      clock.at = from + second * 1000;
      for (const [replica, store] of stores.entries()) {
        const reservation = await store.reserve(KEY, perMinute, clock.at, 0);
        if (reservation.granted) grants.push({ at: clock.at, replica });
      }
    }
    return grants;
  }

  test('one a minute, a slot spent just before: no replica sends before the next slot; then one turn a minute for the cluster, each replica its own', async () => {
    const clock = { at: T0 };
    const { stores } = await threeReplicas(() => clock.at);
    await expect(stores[0].reserve(KEY, 1, T0, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
    for (const store of stores) {
      store.watch(KEY, 1);
      await store.look();
    }
    await harness.server().stop();
    try {
      const grants = await askEverySecond(stores, 1, T0 + 6_000, 600, clock);

      expect(grants[0].at).toBeGreaterThanOrEqual(T0 + RATE_WINDOW_MS);
      const gaps = grants.slice(1).map((grant, index) => grant.at - grants[index].at);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(RATE_WINDOW_MS);
      expect(grants.length).toBeGreaterThanOrEqual(8);
      expect(new Set(grants.map((grant) => grant.replica)).size).toBe(3);
    } finally {
      await harness.server().start();
    }
  });

  test('ten a minute over three replicas: each spends its share of what the shared bucket had left, not a full share', async () => {
    const clock = { at: T0 };
    const { stores } = await threeReplicas(() => clock.at);
    // Nine of ten spent through Redis: one slot is left for the three.
    for (let spent = 0; spent < 9; spent += 1)
      await expect(stores[spent % 3].reserve(KEY, PER_MINUTE, T0, 0)).resolves.toMatchObject({ granted: true });
    for (const store of stores) await store.look();
    await harness.server().stop();
    try {
      const asks = stores.flatMap((store) => Array.from({ length: 10 }, () => store.reserve(KEY, PER_MINUTE, T0, 0)));
      const granted = (await Promise.all(asks)).filter((reservation) => reservation.granted).length;

      // Each holds a third of the one slot left: none is a whole request yet.
      expect(granted).toBe(0);
    } finally {
      await harness.server().start();
    }
  });

  test('a request a replica sent in its turn while Redis was away is charged to the shared bucket when Redis answers: the next shared one waits its interval', async () => {
    const admin = await harness.admin();
    const clock = { at: T0 };
    const { replicas, stores } = await threeReplicas(() => clock.at);
    for (const store of stores) {
      store.watch(KEY, 1);
      await store.look();
    }
    await harness.server().stop();
    let grants: { at: number; replica: number }[];
    try {
      // One turn (63 s at one a minute): the one request sent while away. Later turns of the other replicas
      // would be charged too, before their next shared ask, and the clock below goes back to 5 s after the first.
      grants = await askEverySecond(stores, 1, T0, 63, clock);
    } finally {
      await harness.server().start();
    }
    const [sent] = grants;
    expect(grants).toHaveLength(1);
    const sender = replicas[sent.replica];
    // Every connection of the test, the admin's too: each reconnects on its own backoff.
    await awaitReady(admin, ...replicas.map(({ client }) => client));
    clock.at = sent.at + 5_000;
    await sender.redis.roster.beat();
    await eventually(async () => Number(await admin.get(`test:budget:${KEY}`)) >= sent.at + RATE_WINDOW_MS);

    const other = stores[(sent.replica + 1) % 3];
    await expect(other.reserve(KEY, 1, clock.at, 0)).resolves.toEqual({ granted: false, retryAfterMs: RATE_WINDOW_MS - 5_000 });
  });

  test('Redis restarted empty: the first ask of the replica that sent its turn meanwhile is refused until the next slot, not granted from the empty bucket', async () => {
    const admin = await harness.admin();
    const clock = { at: T0 };
    const { replicas, stores } = await threeReplicas(() => clock.at);
    for (const store of stores) {
      store.watch(KEY, 1);
      await store.look();
    }
    await harness.server().stop();
    let grants: { at: number; replica: number }[];
    try {
      grants = await askEverySecond(stores, 1, T0, 63, clock);
    } finally {
      await harness.server().start();
    }
    const [sent] = grants;
    expect(grants).toHaveLength(1);
    const sender = replicas[sent.replica];
    // The admin's connection too, read below: each client reconnects on its own backoff, not when the sender does.
    await awaitReady(admin, sender.client);
    clock.at = sent.at + 5_000;

    // Its first command since Redis came back: the local turn is charged before the shared bucket grants anything.
    await expect(stores[sent.replica].reserve(KEY, 1, clock.at, 0)).resolves.toEqual({
      granted: false,
      retryAfterMs: RATE_WINDOW_MS - 5_000,
    });
    expect(Number(await admin.get(`test:budget:${KEY}`))).toBe(sent.at + RATE_WINDOW_MS);
  });

  test('a look at the shared bucket while a local spend is still unseen (Redis full, refusing the script) does not forget the spend: it is charged before the next shared grant', async () => {
    const admin = await harness.admin();
    const clock = { at: T0 };
    const replica = await harness.replica();
    const store = new RedisRateStore(replica.redis, () => clock.at);
    await store.look();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    try {
      // Redis refuses the script (OOM): the one slot a minute is spent from the local share; the shared bucket has not seen it.
      await expect(store.reserve(KEY, 1, T0, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
      expect(replica.redis.mode()).toBe('shared');
      // Reads still work: the watched bucket is looked at, and is empty (it never got the spend).
      await store.look();
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }

    clock.at = T0 + 5_000;
    await expect(store.reserve(KEY, 1, clock.at, 0)).resolves.toEqual({ granted: false, retryAfterMs: RATE_WINDOW_MS - 5_000 });
    expect(Number(await admin.get(`test:budget:${KEY}`))).toBe(T0 + RATE_WINDOW_MS);
  });

  test('the store tells its listeners once when it spends from Redis again after a local spend, and not after a shared one', async () => {
    const clock = { at: T0 };
    const replica = await harness.replica();
    const store = new RedisRateStore(replica.redis, () => clock.at);
    let told = 0;
    store.onSharedAgain(() => (told += 1));
    await store.reserve(KEY, PER_MINUTE, T0, 0);
    expect(told).toBe(0);

    await harness.server().stop();
    await store.reserve(KEY, PER_MINUTE, T0, 0);
    await harness.server().start();
    await awaitReady(replica.client);
    await replica.redis.roster.beat();
    await store.reserve(KEY, PER_MINUTE, T0, 0);

    expect(replica.redis.mode()).toBe('shared');
    expect(told).toBe(1);
  });
});
