/**
 * Answers read back from a real redis-server are validated and bounded
 * (issue 22, defect 2): a value the subgraph did not write is a miss, logged
 * once by key (never its content) and deleted; a time from the future is
 * clamped to now.
 */
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { RedisAnswerStore } from '../../src/upstream/stores/redisAnswerStore';
import { eventually, redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const NOW = Date.UTC(2026, 10, 25, 9);

describeWithRedis('values read back from Redis', () => {
  const harness = redisHarness();

  test.each([
    ['not JSON', 'junk-content'],
    ['JSON of another shape', '{"answer":"junk-content"}'],
    ['a fetchedAt that is not a number', '{"value":"junk-content","fetchedAt":"soon"}'],
  ])('an answer that is %s is a miss, logged once by key and deleted; the replica stays shared', async (_name, raw) => {
    const admin = await harness.admin();
    const replica = await harness.replica();
    const store = new RedisAnswerStore(replica.redis, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: 0,
      now: () => NOW,
    });
    await admin.set('test:answer:render:k', raw);

    await expect(store.get('render:k')).resolves.toBeUndefined();
    await eventually(async () => (await admin.exists('test:answer:render:k')) === 0);
    await expect(store.get('render:k')).resolves.toBeUndefined();

    expect(replica.logs).toEqual([expect.objectContaining({ level: 'warn', fields: { redis: 'bad-value', key: 'answer:render:k' } })]);
    expect(JSON.stringify(replica.logs)).not.toContain('junk-content');
    expect(replica.refusals).toEqual(['BADVALUE']);
    expect(replica.redis.mode()).toBe('shared');
  });

  test('an answer fetched "in the future" (1e300) is read as fetched now, so it still turns stale', async () => {
    const admin = await harness.admin();
    const replica = await harness.replica();
    const store = new RedisAnswerStore(replica.redis, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: 0,
      now: () => NOW,
    });
    await admin.set('test:answer:render:k', JSON.stringify({ value: [1], fetchedAt: 1e300 }));

    await expect(store.get('render:k')).resolves.toEqual({ value: [1], fetchedAt: NOW });
  });
});
