/**
 * One contract, three stores of the governor's rates: the in-process
 * MemoryRateStore, the RedisRateStore against a real redis-server, and
 * the RedisRateStore with Redis down (its in-process fallback). Time is
 * the `nowMs` each call passes: nothing here waits.
 */
import { RedisRateStore } from '../../src/redis/upstream/redisRateStore';
import { MemoryRateStore, RATE_WINDOW_MS, type RateStore, type Reservation } from '../../src/upstream/stores/rateStore';
import { contractRedis, type StoreKind } from '../support/redisReplica';

const T0 = 1_763_640_000_000;

const redis = contractRedis();

async function redisStore(kind: 'redis' | 'redis down'): Promise<RateStore> {
  const replica = await redis.connect(kind);
  return new RedisRateStore(replica.redis, () => T0);
}

const stores: Record<StoreKind, () => Promise<RateStore>> = {
  memory: async () => new MemoryRateStore(),
  redis: () => redisStore('redis'),
  'redis down': () => redisStore('redis down'),
};

describe.each(redis.kinds)('the RateStore contract: %s', (kind) => {
  test('a burst of perMinute is granted at once; the next would wait one interval, and is refused when that is too long', async () => {
    const store = await stores[kind]();
    const burst: Reservation[] = [];
    for (let call = 0; call < 10; call += 1) burst.push(await store.reserve('reporting:acct', 10, T0, 0));

    const interval = RATE_WINDOW_MS / 10;
    expect(burst).toEqual(Array.from({ length: 10 }, () => ({ granted: true, waitMs: 0 })));
    await expect(store.reserve('reporting:acct', 10, T0, 0)).resolves.toEqual({ granted: false, retryAfterMs: interval });
    await expect(store.reserve('reporting:acct', 10, T0, interval)).resolves.toEqual({ granted: true, waitMs: interval });
    await expect(store.reserve('reporting:acct', 10, T0 + 2 * interval, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
  });

  test('a reservation that may not wait at all (maxWaitMs below 0) is a look: it takes nothing and names the next place', async () => {
    const store = await stores[kind]();
    // A full bucket: the place is free now (0), and the look took none of it.
    await expect(store.reserve('look', 1, T0, -1)).resolves.toEqual({ granted: false, retryAfterMs: 0 });
    await expect(store.reserve('look', 1, T0, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
    // Spent: the look names the next place, and looking again still finds it there.
    await expect(store.reserve('look', 1, T0 + 1_000, -1)).resolves.toEqual({ granted: false, retryAfterMs: RATE_WINDOW_MS - 1_000 });
    await expect(store.reserve('look', 1, T0 + 1_000, -1)).resolves.toEqual({ granted: false, retryAfterMs: RATE_WINDOW_MS - 1_000 });
    await expect(store.reserve('look', 1, T0 + RATE_WINDOW_MS, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
  });

  test('buckets are separate per key', async () => {
    const store = await stores[kind]();
    await expect(store.reserve('a', 1, T0, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
    await expect(store.reserve('a', 1, T0, 0)).resolves.toEqual({ granted: false, retryAfterMs: RATE_WINDOW_MS });
    await expect(store.reserve('b', 1, T0, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
  });

  test('a pause empties the bucket until its end, then it refills evenly', async () => {
    const store = await stores[kind]();
    const interval = RATE_WINDOW_MS / 3;
    await store.pause('b', 3, T0 + 5_000);
    await expect(store.reserve('b', 3, T0, 1_000)).resolves.toEqual({ granted: false, retryAfterMs: 5_000 });
    await expect(store.reserve('b', 3, T0, 5_000)).resolves.toEqual({ granted: true, waitMs: 5_000 });
    await expect(store.reserve('b', 3, T0 + 5_000, interval - 1)).resolves.toEqual({ granted: false, retryAfterMs: interval });
    await expect(store.reserve('b', 3, T0 + 5_000 + interval, 0)).resolves.toEqual({ granted: true, waitMs: 0 });
  });

  test('answers exactly as the in-process bucket does over a mixed sequence', async () => {
    const store = await stores[kind]();
    const model = new MemoryRateStore();
    const steps: [string, number, number][] = [
      ['reserve', T0, 1_000],
      ['reserve', T0 + 100, 1_000],
      ['reserve', T0 + 200, 1_000],
      ['pause', T0 + 5_000, 0],
      ['reserve', T0 + 300, 10_000],
      ['reserve', T0 + 5_000, 10_000],
      ['reserve', T0 + 5_000, 100],
    ];
    const run = async (bucket: RateStore) => {
      const results: (Reservation | undefined)[] = [];
      for (const [step, at, maxWaitMs] of steps) {
        if (step === 'pause') results.push(await bucket.pause('b', 3, at).then(() => undefined));
        else results.push(await bucket.reserve('b', 3, at, maxWaitMs));
      }
      return results;
    };
    const expected = await run(model);
    expect(expected.filter((result) => result?.granted === false)).not.toHaveLength(0);
    await expect(run(store)).resolves.toEqual(expected);
  });
});
