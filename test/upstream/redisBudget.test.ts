/**
 * The budget over a real redis-server when Redis refuses or is away (issue
 * 22, defect 3): a refusal fails one command and is counted, never an
 * outage; a poisoned bucket is repaired; and a budget the replicas cannot
 * share is split by the replicas last seen, never spent whole by each.
 */
import { RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';
import { RedisRateStore } from '../../src/upstream/stores/redisRateStore';
import { redisHarness, type HarnessReplica } from '../support/redisHarness';
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
