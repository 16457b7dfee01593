import { REDIS_STATE_DEFAULTS } from '../../src/config';
/**
 * The Redis ACL that docs/operations.md documents, tested (issue 29, defect
 * 11): the ACL is read from the page itself (so the page and the test cannot
 * drift), set on a real redis-server, and two replica processes run as that
 * user through real traffic against the emulator's realistic profile: a
 * dashboard (answers, fill markers), tables and a ranking, cold asks (their
 * answers kept per url), a metric outside the plan (learned for the cluster),
 * asks waiting for a slot of a scarce budget (posted, read and withdrawn), the
 * token and its lock, the budget, the roster, Apollo's cache. Redis must
 * refuse none of their commands: its ACL LOG stays empty, and no replica
 * counts a NOPERM or EXECABORT. On the old ACL (no hset, hgetall, hdel,
 * hmget, sadd, smembers, srem, client|setinfo), the log filled and the cold
 * answers and the plan never reached Redis, while readiness said "shared":
 * a command refused for lack of permission now makes it say "partial".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { Secret } from '../../src/redaction/secret';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { articleRepresentations, ingestMostRead } from '../support/analytics';
import { startTestEmulator } from '../support/emulator';
import { postGraphQL } from '../support/federationGateway';
import { scrape, valueOf } from '../support/metricsText';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { startReplicas, type Replica } from '../support/subgraphReplica';

jest.setTimeout(90_000);

const PASSWORD = 'acl-test-pass';
/** The default REDIS_KEY_PREFIX, which the documented ACL's key pattern names. */
const PREFIX = 'analytics-subgraph:';
const MAX_ROWS = 5;

/** `ACL SETUSER <name> <rules…>` as docs/operations.md writes it, its password placeholder replaced. */
function documentedAcl(): { user: string; rules: string[] } {
  const page = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const found = /`ACL SETUSER (\S+) ([^`]+)`/.exec(page);
  if (found === null) throw new Error('docs/operations.md documents no `ACL SETUSER …` line');
  const rules = found[2].split(/\s+/).map((rule) => (rule === '>password' ? `>${PASSWORD}` : rule));
  if (!rules.includes(`>${PASSWORD}`)) throw new Error('the documented ACL has no `>password` placeholder');
  return { user: found[1], rules };
}

const TOP = `query Top($window: DateWindowInput) { topArticles(window: $window, limit: 3) { value from to article { url } } }`;
const ANALYTICS = `query Analytics($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on Article { analytics { pageViews uniqueUsers revenue } } }
}`;
const DASHBOARD = `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, groupBy: [URL], metrics: [PAGE_VIEWS_TOTAL], limit: 3 }) { total } }`;

describeWithRedis('the documented Redis ACL', () => {
  let emulator: RunningEmulator;
  let server: RedisServer;
  let admin: Redis;
  let replicas: Replica[] = [];
  /** Articles of the test's own, read 2 h ago (inside the week), most read first. */
  let ownMostRead: string[];

  beforeAll(async () => {
    [emulator, server] = await Promise.all([
      startTestEmulator({ profile: 'realistic', rates: { reportingPerMinute: 600 } }),
      startRedisServer(),
    ]);
    ownMostRead = await ingestMostRead(
      emulator,
      Array.from({ length: MAX_ROWS + 5 }, (_, index) => ({ url: `https://dailyglobe.example/tests/acl-${index}` })),
      { at: Date.now() - 2 * 3_600_000 },
    );
    admin = createRedisClient({ url: new Secret(server.url), keyPrefix: '', timeoutMs: 2_000 });
    await awaitReady(admin);
    const { user, rules } = documentedAcl();
    await admin.call('ACL', 'SETUSER', user, ...rules);
    await admin.call('ACL', 'LOG', 'RESET');
    const env = {
      REPORTING_BASE_URL: emulator.url,
      RECOMMENDER_URL: emulator.url,
      REPORTING_EMAIL: DEMO_API_USER.email,
      REPORTING_PASSWORD: DEMO_API_USER.password,
      // Scarce: four slots at once, then one every 15 s, so asks wait for a slot (and are posted for the cluster).
      REPORTING_RATE_PER_MINUTE: '4',
      REPORTING_MAX_ROWS: String(MAX_ROWS),
      ANALYTICS_ASK_DEADLINE_MS: '1500',
      REDIS_URL: `redis://${user}:${PASSWORD}@127.0.0.1:${server.port}`,
      REDIS_TIMEOUT_MS: '1000',
    };
    replicas = await startReplicas(2, env);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await admin?.quit();
    await Promise.all([emulator?.close(), server?.close()]);
  });

  const refusals = async (replica: Replica, reason: string) =>
    valueOf(await scrape(new URL('/metrics', replica.url).href), 'subgraph_redis_refused_total', { reason });

  test('replicas running as that user through real traffic have no command refused', async () => {
    const [a, b] = replicas;
    const dashboard = await postGraphQL(a.url, DASHBOARD);
    expect(dashboard.errors).toBeUndefined();
    const ranked = await postGraphQL<{ topArticles: { from: string; to: string }[] }>(a.url, TOP, {
      window: { last: { number: 7, unit: 'DAY' } },
    });
    expect(ranked.errors).toBeUndefined();
    // Articles outside the table of 5 rows: the test's own, read in the week (never the demo data's ranking).
    const outside = ownMostRead.slice(MAX_ROWS + 1, MAX_ROWS + 5);
    // A cold ask on the other replica: its query carries revenue, which the realistic plan lacks.
    await postGraphQL(b.url, ANALYTICS, { representations: articleRepresentations(outside.slice(0, 1)) });
    // Asks beyond the budget on both replicas: they wait for a slot, posted on the board, then give up at their deadline.
    await Promise.all([
      postGraphQL(a.url, ANALYTICS, { representations: articleRepresentations(outside.slice(1, 2)) }),
      postGraphQL(b.url, ANALYTICS, { representations: articleRepresentations(outside.slice(2, 4)) }),
    ]);
    await postGraphQL(b.url, ANALYTICS, { representations: articleRepresentations(outside.slice(0, 1)) });

    expect(await denied(admin)).toEqual([]);
    const keys = (await admin.keys(`${PREFIX}*`)).map((key) => key.slice(PREFIX.length).replace(/^(analytics:[a-z]+|[a-z]+).*$/, '$1'));
    expect([...new Set(keys)].sort()).toEqual(
      expect.arrayContaining([
        'analytics:demand',
        'analytics:plan',
        'analytics:points',
        'analytics:table',
        'answer',
        'apollo',
        'budget',
        'replicas',
        'reporting',
      ]),
    );
    for (const replica of replicas) {
      expect([await refusals(replica, 'NOPERM'), await refusals(replica, 'EXECABORT')]).toEqual([0, 0]);
      const ready = (await (await fetch(new URL('/health/ready', replica.url))).json()) as { redis?: string };
      expect(ready.redis).toBe('shared');
    }
  });
});

/** What the ACL LOG holds, one `reason object` per entry (a refused command, or a key outside the pattern), without repeats. */
async function denied(admin: Redis): Promise<string[]> {
  const entries = (await admin.call('ACL', 'LOG', '128')) as unknown[][];
  const described = entries.map((entry) => {
    const fields = new Map<unknown, unknown>();
    for (let index = 0; index + 1 < entry.length; index += 2) fields.set(entry[index], entry[index + 1]);
    return `${String(fields.get('reason'))} ${String(fields.get('object'))}`;
  });
  return [...new Set(described)].sort();
}

describeWithRedis('a command refused for lack of permission', () => {
  let server: RedisServer;
  let clients: Redis[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    const admin = createRedisClient({ url: new Secret(server.url), keyPrefix: '', timeoutMs: 2_000 });
    await awaitReady(admin);
    // The old documented ACL's gap: no hash commands.
    await admin.call('ACL', 'SETUSER', 'limited', 'on', `>${PASSWORD}`, '~*', '+get', '+set', '+multi', '+exec', '+info', '+ping');
    await admin.quit();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });

  afterAll(async () => {
    await server?.close();
  });

  async function limitedReplica(now: () => number): Promise<SharedRedis> {
    const client = createRedisClient({
      url: new Secret(`redis://limited:${PASSWORD}@127.0.0.1:${server.port}`),
      keyPrefix: 'acl:',
      timeoutMs: 1_000,
    });
    clients.push(client);
    await awaitReady(client);
    return new SharedRedis({
      ...REDIS_STATE_DEFAULTS.sharedRedis,
      client,
      logger: { info: () => {}, warn: () => {} },
      timeoutMs: 1_000,
      retryAfterMs: 0,
      now,
    });
  }

  test.each([
    ['alone', (redis: SharedRedis) => redis.attempt((client) => client.hset('k', 'f', 'v'))],
    [
      'in a transaction (EXECABORT)',
      (redis: SharedRedis) => redis.attempt((client) => client.multi().set('a', '1').hset('k', 'f', 'v').exec()),
    ],
  ])('%s makes readiness say "partial" instead of "shared" for a minute', async (_name, refused) => {
    let now = Date.UTC(2026, 10, 27, 12);
    const redis = await limitedReplica(() => now);
    await expect(redis.attempt((client) => client.set('k', 'v'))).resolves.toEqual({ ok: true, value: 'OK' });
    expect(redis.mode()).toBe('shared');

    await expect(refused(redis)).resolves.toEqual(expect.objectContaining({ ok: false, failure: 'refused' }));

    expect(redis.mode()).toBe('partial');
    now += 61_000;
    await redis.attempt((client) => client.get('k'));
    expect(redis.mode()).toBe('shared');
  });
});
