/**
 * Values read back from a real redis-server are validated and bounded
 * (issue 22, defect 2; issue 29, defects 10 and 13): a value the subgraph did
 * not write is a miss, logged once by key (never its content), counted and
 * deleted; a time from the future is clamped to now (an answer) or, beyond
 * clock skew, bad (a table); a key of another type is deleted where it is
 * read or refuses a write (src/redis/connection/readValue.ts).
 */
import { sharedAnalyticsBoard } from '../../src/redis/reporting/redisAnalyticsBoard';
import { sharedTableStore } from '../../src/redis/reporting/redisTableStore';
import type { TableStore } from '../../src/reporting/tables/tableStore';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { RedisAnswerStore } from '../../src/redis/upstream/redisAnswerStore';
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

/** A stored analytics table as the subgraph writes it (src/redis/reporting/storedTable.ts). */
function storedTable(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    key: 'week',
    from: NOW - 7 * 86_400_000,
    to: NOW,
    fetchedAt: NOW - 1_000,
    metrics: ['pageViewsTotal'],
    rows: [['u1', { pageViewsTotal: 12 }]],
    complete: true,
    urls: 'all',
    ...overrides,
  });
}

describeWithRedis('analytics tables read back from Redis', () => {
  const harness = redisHarness();
  const CONFIG = { analytics: { maxStalenessSeconds: 900 } };

  async function store() {
    const replica = await harness.replica();
    return { replica, tables: sharedTableStore(replica.redis, CONFIG, () => NOW) };
  }

  test('a good table is read back as written, a fetchedAt a little ahead (clock skew) as now', async () => {
    const admin = await harness.admin();
    const { replica, tables } = await store();
    await admin.set('test:analytics:table:week', storedTable());
    await admin.set('test:analytics:table:skewed', storedTable({ key: 'skewed', fetchedAt: NOW + 2_000 }));

    const table = await tables.table('week');
    expect(table).toEqual(
      expect.objectContaining({ key: 'week', fetchedAt: NOW - 1_000, metrics: ['pageViewsTotal'], complete: true, urls: 'all' }),
    );
    expect([...(table?.rows ?? new Map())]).toEqual([['u1', { pageViewsTotal: 12 }]]);
    expect((await tables.table('skewed'))?.fetchedAt).toBe(NOW);
    expect(replica.refusals).toEqual([]);
  });

  test.each([
    ['under another key', { key: 'month' }],
    ['without metrics', { metrics: undefined }],
    ['with an unknown metric', { metrics: ['everything'] }],
    ['with a row of a metric it does not have', { rows: [['u1', { uniqueUsers: 3 }]] }],
    ['with a count that is a string', { rows: [['u1', { pageViewsTotal: '12' }]] }],
    ['with a negative count', { rows: [['u1', { pageViewsTotal: -12 }]] }],
    ['fetched a minute ahead', { fetchedAt: NOW + 60_000 }],
    ['fetched at a negative time', { fetchedAt: -1 }],
    ['over a window that ends before it starts', { from: NOW, to: NOW - 1 }],
    ['without complete', { complete: 'yes' }],
    ['speaking for urls that are not strings', { urls: [1] }],
  ])('a table %s is a miss, deleted and counted', async (_name, overrides) => {
    const admin = await harness.admin();
    const { replica, tables } = await store();
    await admin.set('test:analytics:table:week', storedTable(overrides));

    await expect(tables.table('week')).resolves.toBeUndefined();
    await eventually(async () => (await admin.exists('test:analytics:table:week')) === 0);
    expect(replica.refusals).toEqual(['BADVALUE']);
    expect(replica.logs).toEqual([expect.objectContaining({ fields: { redis: 'bad-value', key: 'analytics:table:week' } })]);
  });

  test("a bad cold answer is a miss and only its field is deleted; the other urls' answers stay", async () => {
    const admin = await harness.admin();
    const { replica, tables } = await store();
    const point = (url: string, overrides: Record<string, unknown> = {}) =>
      storedTable({ rows: [[url, { pageViewsTotal: 3 }]], urls: [url], complete: false, ...overrides });
    await admin.hset(
      'test:analytics:points:week',
      'good',
      point('good'),
      'future',
      point('future', { fetchedAt: NOW + 10 * 365 * 86_400_000, rows: [] }),
      'other-url',
      point('elsewhere'),
      'not-json',
      '{',
    );

    const found = await tables.points('week', ['good', 'future', 'other-url', 'not-json']);

    expect([...found.keys()]).toEqual(['good']);
    await eventually(async () => (await admin.hkeys('test:analytics:points:week')).length === 1);
    expect(await admin.hkeys('test:analytics:points:week')).toEqual(['good']);
    expect(replica.refusals).toEqual(['BADVALUE', 'BADVALUE', 'BADVALUE']);
  });
});

describeWithRedis('keys of another type', () => {
  const harness = redisHarness();
  const CONFIG = { analytics: { maxStalenessSeconds: 900 } };
  const coldAnswer = {
    key: 'week',
    from: NOW - 7 * 86_400_000,
    to: NOW,
    fetchedAt: NOW,
    metrics: ['pageViewsTotal'] as const,
    rows: new Map([['u1', { pageViewsTotal: 4 }]]),
    complete: false,
    urls: new Set(['u1']),
  };

  test('a cold answers key of another type is not kept alive by the write: it is deleted, and the next write shares again', async () => {
    const admin = await harness.admin();
    const { redis, refusals } = await harness.replica();
    const tables = sharedTableStore(redis, CONFIG, () => NOW);
    await admin.set('test:analytics:points:week', 'a string', 'PX', 90_000);

    await tables.setPoints(coldAnswer);

    // On the old code the HSET was refused, the PEXPIRE went through: a string kept for an hour.
    await eventually(async () => (await admin.exists('test:analytics:points:week')) === 0);
    expect(refusals).toContain('BADVALUE');
    await tables.setPoints(coldAnswer);
    expect(await admin.type('test:analytics:points:week')).toBe('hash');
    const other = sharedTableStore((await harness.replica()).redis, CONFIG, () => NOW);
    expect([...(await other.points('week', ['u1'])).keys()]).toEqual(['u1']);
  });

  test.each([
    ['a table', 'test:analytics:table:week', (tables: TableStore) => tables.table('week')],
    ['cold answers', 'test:analytics:points:week', (tables: TableStore) => tables.points('week', ['u1'])],
  ])('a read of %s under a key of another type deletes it (refused once, then a plain miss)', async (_name, key, read) => {
    const admin = await harness.admin();
    const { redis, refusals } = await harness.replica();
    const tables = sharedTableStore(redis, CONFIG, () => NOW);
    if (key.includes(':table:')) await admin.hset(key, 'a', 'hash');
    else await admin.set(key, 'a string');

    await read(tables);

    await eventually(async () => (await admin.exists(key)) === 0);
    expect(refusals).toEqual(['WRONGTYPE', 'BADVALUE']);
  });

  test('an answer under a key of another type is deleted at its read', async () => {
    const admin = await harness.admin();
    const { redis, refusals } = await harness.replica();
    const store = new RedisAnswerStore(redis, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: 0,
      now: () => NOW,
    });
    await admin.hset('test:answer:render:k', 'a', 'hash');

    await expect(store.get('render:k')).resolves.toBeUndefined();

    await eventually(async () => (await admin.exists('test:answer:render:k')) === 0);
    expect(refusals).toEqual(['WRONGTYPE', 'BADVALUE']);
  });

  test('a waiting list or plan key of another type that refuses a write is deleted, and the next post shares again', async () => {
    const admin = await harness.admin();
    const { redis } = await harness.replica();
    const board = sharedAnalyticsBoard(redis, { analytics: { askDeadlineMs: 20_000 } });
    await admin.set('test:analytics:waiting:week', 'a string', 'PX', 90_000);
    await admin.set('test:analytics:plan:unavailable', 'a string', 'PX', 90_000);

    board.post('week', [{ metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]);
    board.learnUnavailable('CPM');
    await board.posted();

    await eventually(async () => (await admin.exists('test:analytics:waiting:week', 'test:analytics:plan:unavailable')) === 0);
    board.post('week', [{ metrics: ['uniqueUsers'], deadline: NOW + 1_000 }]);
    board.learnUnavailable('CPM');
    await board.posted();
    expect(await admin.type('test:analytics:waiting:week')).toBe('hash');
    expect(await admin.smembers('test:analytics:plan:unavailable')).toEqual(['CPM']);
  });
});
