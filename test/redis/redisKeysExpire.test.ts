/**
 * The eviction policy's premise (docker-compose.yml: noeviction, issue 22
 * point 8): every key the subgraph writes ends by itself, so a full Redis
 * empties as answers lapse; the only key without a TTL is the replica roster,
 * one member per live replica.
 */
import { SharedTokenProvider } from '../../src/redis/upstream/sharedTokenProvider';
import { createApolloCache } from '../../src/redis/connection/apolloCache';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { RedisAnswerStore } from '../../src/redis/upstream/redisAnswerStore';
import { RedisRateStore } from '../../src/redis/upstream/redisRateStore';
import { sharedAnalyticsBoard } from '../../src/redis/reporting/redisAnalyticsBoard';
import { MAX_TTL_MS } from '../../src/redis/connection/ttl';
import { redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';
import { jwtLiving } from '../support/tokenFixtures';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

describeWithRedis('keys the subgraph writes', () => {
  const harness = redisHarness();

  test('all expire within MAX_TTL_MS, except the replica roster', async () => {
    const admin = await harness.admin();
    const { redis } = await harness.replica();
    const now = Date.now();
    await new SharedTokenProvider({
      ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
      signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
      ...REDIS_STATE_DEFAULTS.tokenExchange,
      signIn: async () => jwtLiving(1e12, now, 'far'),
      redis,
      lockMs: 5_000,
      now: () => now,
    }).getToken();
    const answers = new RedisAnswerStore(redis, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: 5_000,
    });
    await answers.set('render:a', { value: [1], fetchedAt: now }, 1e15);
    await expect(answers.claim('render:b')).resolves.toEqual({ kind: 'claimed' });
    const budget = new RedisRateStore(redis, () => now);
    await budget.reserve('render:host', 60, now, 0);
    await budget.pause('reporting:acct', 1, now + 60_000);
    await createApolloCache(redis, REDIS_STATE_DEFAULTS.apolloCache).set('apq:abc', 'query { x }');
    await redis.roster?.beat();
    const board = sharedAnalyticsBoard(redis, { analytics: { askDeadlineMs: 20_000 } });
    board.post('week', [{ metrics: ['pageViewsTotal'], deadline: now + 20_000 }]);
    board.learnUnavailable('revenueTotal');
    await board.recordDemand('week', now);
    await board.posted();

    const keys = (await admin.keys('*')).sort();
    const ttls = await Promise.all(keys.map(async (key) => [key, await admin.pttl(key)] as const));

    expect(keys).toEqual([
      'test:analytics:demand:week',
      'test:analytics:plan:unavailable',
      'test:analytics:waiting:week',
      'test:answer:render:a',
      'test:apollo:apq:abc',
      'test:budget:render:host',
      'test:budget:reporting:acct',
      'test:filling:render:b',
      'test:replicas',
      'test:reporting:token',
    ]);
    for (const [key, ttl] of ttls) {
      if (key === 'test:replicas') expect(ttl).toBe(-1);
      else expect([key, ttl > 0 && ttl <= MAX_TTL_MS]).toEqual([key, true]);
    }
    await answers.fail('render:b');
  });
});
