/**
 * The replica roster on a real redis-server (src/redis/connection/replicaRoster.ts):
 * the count of live replicas splits the budget while Redis cannot share it,
 * so members that are not live replicas must not stay in it (issue 29,
 * defect 12: 1,000 members with future heartbeats were never removed, and
 * after a Redis pause each replica spent 1/1001 of the budget, refusing asks
 * with retryAfter ≈ 300 s).
 */
import { redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';

const NOW = Date.UTC(2026, 10, 27, 12);

describeWithRedis('replica roster', () => {
  const harness = redisHarness();

  test('counts the replicas that beat lately, and drops the ones not seen for 15 s', async () => {
    const admin = await harness.admin();
    const [a, b] = await Promise.all([harness.replica({ now: () => NOW }), harness.replica({ now: () => NOW })]);
    await admin.zadd('test:replicas', NOW - 16_000, 'gone');
    await a.redis.roster.beat();
    await b.redis.roster.beat();

    expect(b.redis.roster.lastSeen()).toBe(2);
    expect((await admin.zrange('test:replicas', '0', '-1')).sort()).toEqual([a.redis.roster.id, b.redis.roster.id].sort());
  });

  test('drops members whose heartbeat lies further ahead than a heartbeat period of clock skew, and keeps a slightly skewed replica', async () => {
    const admin = await harness.admin();
    const replica = await harness.replica({ now: () => NOW });
    const fake = Array.from({ length: 1_000 }, (_, index) => [String(NOW + 86_400_000 + index), `fake-${index}`]).flat();
    await admin.zadd('test:replicas', ...fake);
    await admin.zadd('test:replicas', NOW + 2_000, 'skewed-replica');

    await replica.redis.roster.beat();

    expect(replica.redis.roster.lastSeen()).toBe(2);
    expect((await admin.zrange('test:replicas', '0', '-1')).sort()).toEqual([replica.redis.roster.id, 'skewed-replica'].sort());
  });
});
