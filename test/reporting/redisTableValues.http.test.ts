/**
 * Analytics tables read back from a real redis-server are validated (issue
 * 29, defect 10), seen over real HTTP: a replica process on Redis against the
 * emulator; the test rewrites the entries the replica stored (as another
 * version, a hand edit or a replica with a skewed clock could) and asks
 * again. A bad entry is a miss: the replica serves its own table, the entry
 * is deleted and counted (`subgraph_redis_refused_total{reason="BADVALUE"}`).
 * On the old code the same entries gave INTERNAL_SERVER_ERROR, every
 * article as 0 dated ten years ahead, field errors, negative counts and
 * "Invalid time value".
 */
import type { Redis } from 'ioredis';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { Secret } from '../../src/redaction/secret';
import { articleRepresentations, ingestMostRead } from '../support/analytics';
import { startTestEmulator } from '../support/emulator';
import { postGraphQL, type GraphQLResponse } from '../support/federationGateway';
import { scrape, valueOf } from '../support/metricsText';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { startReplica, type Replica } from '../support/subgraphReplica';

jest.setTimeout(60_000);

const PREFIX = 'values-test:';
const TEN_YEARS_MS = 10 * 365 * 86_400_000;
/** Tables of 5 rows: the other articles are asked cold, and their answers kept in `analytics:points:`. */
const MAX_ROWS = 5;

const TOP = `query Top($window: DateWindowInput) {
  topArticles(window: $window, limit: 3) { value fetchedAt from to article { url } }
}`;
const ANALYTICS = `query Analytics($representations: [_Any!]!, $window: DateWindowInput) {
  _entities(representations: $representations) { ... on Article { analytics(window: $window) { pageViews uniqueUsers fetchedAt } } }
}`;

type Top = GraphQLResponse<{
  topArticles: { value: number; fetchedAt: string; from: string; to: string; article: { url: string } }[] | null;
}>;
type Analytics = GraphQLResponse<{
  _entities: ({ analytics: { pageViews: number; uniqueUsers: number; fetchedAt: string } | null } | null)[];
}>;

type Stored = Record<string, unknown> & { rows: [string, Record<string, unknown>][] };

describeWithRedis('analytics tables read back from Redis, over HTTP', () => {
  let emulator: RunningEmulator;
  let server: RedisServer;
  let admin: Redis;
  let replica: Replica;
  let window = 1;
  /** Articles of the test's own, read 2 h ago (inside every window of the last N days), most read first. */
  let ownMostRead: string[];

  beforeAll(async () => {
    [emulator, server] = await Promise.all([startTestEmulator({ rates: { reportingPerMinute: 600 } }), startRedisServer()]);
    admin = createRedisClient({ url: new Secret(server.url), keyPrefix: '', timeoutMs: 2_000 });
    await awaitReady(admin);
    ownMostRead = await ingestMostRead(
      emulator,
      Array.from({ length: MAX_ROWS + 3 }, (_, index) => ({ url: `https://dailyglobe.example/tests/values-${index}` })),
      { at: Date.now() - 2 * 3_600_000 },
    );
    replica = await startReplica({
      REPORTING_BASE_URL: emulator.url,
      RECOMMENDER_URL: emulator.url,
      REPORTING_EMAIL: DEMO_API_USER.email,
      REPORTING_PASSWORD: DEMO_API_USER.password,
      REPORTING_RATE_PER_MINUTE: '600',
      REPORTING_MAX_ROWS: String(MAX_ROWS),
      RESPONSE_CACHE_ENABLED: 'false',
      REDIS_URL: server.url,
      REDIS_KEY_PREFIX: PREFIX,
      REDIS_TIMEOUT_MS: '1000',
    });
  }, 60_000);

  afterAll(async () => {
    await replica?.stop();
    await admin?.quit();
    await Promise.all([emulator?.close(), server?.close()]);
  });

  /** Each test its own window, so its own tables: what one test poisons is never another's. */
  const nextWindow = () => ({ last: { number: (window += 1), unit: 'DAY' } });
  const top = (win: unknown) => postGraphQL(replica.url, TOP, { window: win }) as Promise<Top>;
  const analytics = (win: unknown, urls: string[]) =>
    postGraphQL(replica.url, ANALYTICS, { window: win, representations: articleRepresentations(urls) }) as Promise<Analytics>;
  const badValues = async () =>
    valueOf(await scrape(new URL('/metrics', replica.url).href), 'subgraph_redis_refused_total', { reason: 'BADVALUE' });

  /** The one key of a family holding this window's table (its spec key names the window). */
  async function keyOf(family: 'table' | 'points', win: { last: { number: number } }): Promise<string> {
    const keys = await admin.keys(`${PREFIX}analytics:${family}:*`);
    const mine = keys.filter((key) => key.includes(`"number":${win.last.number},`));
    if (mine.length !== 1) throw new Error(`expected one ${family} key for ${JSON.stringify(win)}, got ${JSON.stringify(keys)}`);
    return mine[0];
  }

  async function rewrite(key: string, change: (stored: Stored) => string): Promise<string> {
    const text = await admin.get(key);
    if (text === null) throw new Error(`no ${key}`);
    const poisoned = change(JSON.parse(text) as Stored);
    await admin.set(key, poisoned, 'PX', 3_600_000);
    return poisoned;
  }

  const withAllRows = (stored: Stored, value: (old: unknown) => unknown): Stored => ({
    ...stored,
    rows: stored.rows.map(([url, values]) => [
      url,
      Object.fromEntries(Object.entries(values).map(([metric, old]) => [metric, value(old)])),
    ]),
  });

  test.each<[string, (stored: Stored) => string]>([
    ['without metrics', ({ metrics: _dropped, ...rest }) => JSON.stringify(rest)],
    [
      'fetched ten years ahead, with no rows and complete',
      (stored) => JSON.stringify({ ...stored, fetchedAt: Date.now() + TEN_YEARS_MS, rows: [], complete: true }),
    ],
    ['with numbers as strings', (stored) => JSON.stringify(withAllRows(stored, (old) => String(old)))],
    ['with negative counts', (stored) => JSON.stringify(withAllRows(stored, (old) => -Number(old)))],
    ['fetched at 1e400', (stored) => JSON.stringify({ ...stored, fetchedAt: 0 }).replace('"fetchedAt":0', '"fetchedAt":1e400')],
  ])('a table entry %s is a miss: the replica serves its own table, and the entry is deleted and counted', async (_name, change) => {
    const win = nextWindow();
    const firstTop = await top(win);
    expect(firstTop.errors).toBeUndefined();
    const urls = (firstTop.data?.topArticles ?? []).map((row) => row.article.url);
    expect(urls).toHaveLength(3);
    const firstAnalytics = await analytics(win, urls);
    expect(firstAnalytics.errors).toBeUndefined();
    const key = await keyOf('table', win);
    const badBefore = await badValues();

    const poisoned = await rewrite(key, change);

    const [againTop, againAnalytics] = [await top(win), await analytics(win, urls)];
    expect({ errors: againTop.errors, data: againTop.data }).toEqual({ errors: undefined, data: firstTop.data });
    expect({ errors: againAnalytics.errors, data: againAnalytics.data }).toEqual({ errors: undefined, data: firstAnalytics.data });
    expect(await admin.get(key)).not.toBe(poisoned);
    expect(await badValues()).toBeGreaterThan(badBefore);
  });

  test('a cold answer fetched ten years ahead with no rows is a miss: the article keeps its numbers and date', async () => {
    const win = nextWindow();
    const ranked = await top(win);
    expect(ranked.data?.topArticles?.map((row) => row.article.url)).toEqual(ownMostRead.slice(0, 3));
    // An article outside the table of 5 rows (the test's own, read in every window): its numbers come from a cold query, kept per url.
    const url = ownMostRead[MAX_ROWS + 2];
    const first = await analytics(win, [url]);
    expect(first.errors).toBeUndefined();
    expect(first.data?._entities[0]?.analytics?.pageViews).toBeGreaterThan(0);
    const key = await keyOf('points', win);
    const text = await admin.hget(key, url);
    expect(text).not.toBeNull();
    const stored = JSON.parse(text ?? '{}') as Stored;
    const poisoned = JSON.stringify({ ...stored, fetchedAt: Date.now() + TEN_YEARS_MS, rows: [] });
    await admin.hset(key, url, poisoned);
    const badBefore = await badValues();

    const again = await analytics(win, [url]);

    expect({ errors: again.errors, data: again.data }).toEqual({ errors: undefined, data: first.data });
    expect(await admin.hget(key, url)).not.toBe(poisoned);
    expect(await badValues()).toBeGreaterThan(badBefore);
  });
});
