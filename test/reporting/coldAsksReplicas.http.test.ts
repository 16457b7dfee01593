/**
 * Three replicas on a real redis-server, over real HTTP against the
 * emulator's realistic profile: cold asks waiting on different replicas are
 * answered by ONE query at the cluster's next slot (the union of their urls
 * and metrics), and a metric outside the plan is learned once for the
 * cluster. A proxy in front of the emulator records every dashboard body it
 * receives.
 *
 * The replicas share one fake clock (the governor, the tables' scheduler, the
 * deadlines) that moves only when the test moves it, one replica at a time
 * (test/reporting/support/clusterClock.ts): the cluster's governor keeps its
 * real-host rate of one query a minute of that clock, and no real latency
 * (Redis round trips, HTTP) passes in it, however busy the machine. The
 * emulator keeps its real budget of one query a minute of its own clock,
 * which the test moves on a minute between slots.
 */
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, EMBEDDED_GOVERNOR_CONFIG, type AnalyticsConfig } from '../../src/config';
import type { MetricName } from '../../src/kernel/wire';
import type { AnalyticsBoard } from '../../src/reporting/tables/analyticsBoard';
import { sharedAnalyticsBoard } from '../../src/redis/reporting/redisAnalyticsBoard';
import { sharedTableStore } from '../../src/redis/reporting/redisTableStore';
import { articleRepresentations, directArticleMetrics, EMULATOR_SLOT_SECONDS, urlsByPageViews } from '../support/analytics';
import { startBodyRecorder, type BodyRecorder } from '../support/bodyRecorder';
import { testConfig } from '../support/config';
import { apiToken } from '../support/emulator';
import { postGraphQL } from '../support/federationGateway';
import { contractRedis } from '../support/redisReplica';
import { describeWithRedis } from '../support/redisServer';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import { advanceClock, readStats, resetStats, startSmallEmulator } from '../support/subgraphHttp';
import { demoUpstreams } from '../support/demoUpstreams';
import { buildTestServer } from '../support/services';
import { eventually } from '../support/redisHarness';
import { tableSpec } from '../../src/reporting/tables/tableSpec';
import { redisUpstreamStores } from '../../src/redis/upstream/redisUpstreamStores';
import { ClusterClock, type ReplicaClock } from './support/clusterClock';

jest.setTimeout(60_000);

const MAX_ROWS = 5;
/** The longest deadline: the asks wait for the next slot, a minute away. */
const ANALYTICS: AnalyticsConfig = { ...DEFAULT_ANALYTICS_CONFIG, chunkSize: MAX_ROWS, windowAlignSeconds: 3_600, askDeadlineMs: 120_000 };
/** Fresh for 5 minutes: no refresh by demand competes with the cold asks. */
const CACHE = { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: 300 };
const WEEK = `window: { last: { number: 7, unit: DAY } }`;
/** The table of the panels' default window (a week) ranked by page views. */
const WEEK_TABLE = tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal');

interface Replica {
  graphqlUrl: string;
  clock: ReplicaClock;
  /** Its board: what it posts for the other replicas is written in the background (`posted`). */
  board: AnalyticsBoard;
  close(): Promise<void>;
}

interface Analytics {
  from: string;
  to: string;
  pageViews?: number;
  uniqueUsers?: number;
  totalDuration?: number;
  revenue?: number | null;
}

const redisCases = contractRedis();
/** The real-host rate, on the cluster's clock; refused at once rather than queued, so asks wait in the tables' scheduler. */
const GOVERNOR = { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 1, queueTimeoutMs: 0 };

describeWithRedis('cold asks across 3 replicas on Redis', () => {
  let emulator: RunningEmulator;
  let recorder: BodyRecorder;
  let token: string;
  let replicas: Replica[] = [];
  let clock: ClusterClock;

  beforeAll(async () => {
    emulator = await startSmallEmulator({ profile: 'realistic' });
    recorder = await startBodyRecorder(emulator.url);
    token = await apiToken(emulator);
  });

  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.close()));
  });

  afterAll(async () => {
    await recorder?.close();
    await emulator?.close();
  });

  async function startReplica(analytics: AnalyticsConfig = ANALYTICS): Promise<Replica> {
    const { client, redis } = await redisCases.connect('redis', { timeoutMs: 1_000 });
    const replicaClock = clock.replica();
    // No time passes while the replica waits for Redis (the clock moves only when every replica is quiet).
    clock.watchRedis(replicaClock, client);
    const now = (): number => replicaClock.now();
    const upstreams = demoUpstreams({
      reportingBaseUrl: recorder.url,
      recommenderUrl: emulator.url,
      stores: redisUpstreamStores(redis),
      protection: { now, governor: GOVERNOR },
    });
    const config = testConfig({
      // The queue's slots a minute are the governor's (the refusals name its slots).
      governor: GOVERNOR,
      renderMaxConcurrency: 4,
      cache: CACHE,
      analytics,
      reportingMaxRows: MAX_ROWS,
      responseCacheEnabled: false,
    });
    const board = sharedAnalyticsBoard(redis, config);
    const server = buildTestServer(config, {
      // No time passes while the replica's query is in flight either (the test's second slot waits for the first's answer).
      dashboard: { ...upstreams.reporting, query: (body, grant) => clock.during(replicaClock, upstreams.reporting.query(body, grant)) },
      recommender: upstreams.recommender,
      logger: silentLogger,
      clock: replicaClock,
      tableStore: sharedTableStore(redis, config, now),
      tablesShared: true,
      board,
    });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    const { port } = server.httpServer.address() as AddressInfo;
    return {
      graphqlUrl: `http://127.0.0.1:${port}/graphql`,
      clock: replicaClock,
      board,
      close: async () => {
        await server.stop();
        await upstreams.close();
      },
    };
  }

  async function panel(replica: Replica, url: string, selection: string): Promise<Analytics> {
    const result = await postGraphQL<{ _entities: { analytics: Analytics }[] }>(
      replica.graphqlUrl,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { from to ${selection} } } } }`,
      { reps: articleRepresentations([url]) },
    );
    expect(result.errors).toBeUndefined();
    const analytics = result.data?._entities[0]?.analytics;
    if (analytics === undefined) throw new Error('no analytics');
    return analytics;
  }

  /** The week's table (MAX_ROWS rows, so full) fetched by one replica; the week's urls, most read first. */
  async function weekTable(replica: Replica): Promise<{ top: string[]; ranked: string[] }> {
    await advanceClock(emulator, EMULATOR_SLOT_SECONDS); // whatever the test before spent
    const ranking = await postGraphQL<{ topArticles: { article: { url: string } }[] }>(
      replica.graphqlUrl,
      `{ topArticles(${WEEK}, limit: ${MAX_ROWS}) { article { url } } }`,
    );
    expect(ranking.errors).toBeUndefined();
    const top = ranking.data?.topArticles.map((row) => row.article.url) ?? [];
    const window = await panel(replica, top[0], 'pageViews');
    const ranked = await urlsByPageViews(emulator, token, window);
    // The emulator's slot again, for the cluster's next query.
    await advanceClock(emulator, EMULATOR_SLOT_SECONDS);
    return { top, ranked };
  }

  it("one query at the cluster's next slot answers the cold asks waiting on every replica: the union of their urls and metrics", async () => {
    clock = new ClusterClock(Date.now());
    replicas = await Promise.all([startReplica(), startReplica(), startReplica()]);
    const { ranked } = await weekTable(replicas[0]);
    const [a, b, c] = ranked.slice(2 * MAX_ROWS, 2 * MAX_ROWS + 3);
    await resetStats(emulator);
    recorder.dashboards.length = 0;

    const asks: [string, string, MetricName[]][] = [
      [a, 'pageViews', ['pageViewsTotal']],
      [b, 'uniqueUsers', ['uniqueUsers']],
      [c, 'totalDuration: metric(metric: TOTAL_DURATION)', ['totalDuration']],
    ];
    const asking = Promise.all(asks.map(([url, selection], index) => panel(replicas[index], url, selection)));
    // Every replica's ask waits for the slot (the governor refused it) and is posted for the others, before the slot comes.
    await Promise.all(replicas.map((replica) => clock.waiting(replica.clock, 1)));
    await Promise.all(replicas.map((replica) => replica.board.posted()));
    const answers = await clock.runUntil(asking);

    expect(recorder.dashboards).toHaveLength(1);
    const [merged] = recorder.dashboards;
    const urlFilters = merged.filters.filter((filter) => filter.filter === 'url');
    expect(urlFilters).toHaveLength(1);
    expect([...urlFilters[0].value].sort()).toEqual([a, b, c].sort());
    expect(merged.metrics).toEqual(expect.arrayContaining(asks.flatMap(([, , metrics]) => metrics)));
    expect(await readStats(emulator)).toMatchObject({ dashboard: { count: 1 } });

    // Each replica's answer is what a direct query for its url says, over the window the merged query was over.
    for (const [index, [url, , metrics]] of asks.entries()) {
      await advanceClock(emulator, EMULATOR_SLOT_SECONDS);
      const direct = await directArticleMetrics(emulator, token, url, answers[index], metrics);
      const field = { pageViewsTotal: 'pageViews', uniqueUsers: 'uniqueUsers', totalDuration: 'totalDuration' } as const;
      const metric = metrics[0] as keyof typeof field;
      expect(answers[index][field[metric]]).toBe(direct[metric]);
    }
  });

  it('a metric outside the plan is learned once for the cluster: the other replicas never ask for it', async () => {
    clock = new ClusterClock(Date.now());
    replicas = await Promise.all([startReplica(), startReplica(), startReplica()]);
    const { top } = await weekTable(replicas[0]);
    recorder.dashboards.length = 0;

    const learning = await clock.runUntil(
      postGraphQL(
        replicas[1].graphqlUrl,
        `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews revenue } } } }`,
        { reps: articleRepresentations([top[0]]) },
      ),
    );
    expect(learning.errors?.map((error) => [error.extensions?.code, error.path])).toEqual([
      ['UPSTREAM_METRIC_UNAVAILABLE', ['_entities', 0, 'analytics', 'revenue']],
    ]);
    expect(recorder.dashboards.map((body) => body.metrics.includes('revenueTotal'))).toEqual([true]);
    // What it learned reaches Redis in the background: written before the other replicas are asked.
    await replicas[1].board.posted();

    for (const replica of [replicas[0], replicas[2]]) {
      // Moving the clock on while it is asked: an ask that waited for a slot would get one, and its query would be recorded.
      const again = await clock.runUntil(
        postGraphQL<{ _entities: { analytics: Analytics }[] }>(
          replica.graphqlUrl,
          `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews revenue } } } }`,
          { reps: articleRepresentations([top[1]]) },
        ),
      );
      expect(again.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_METRIC_UNAVAILABLE']);
      expect(again.data?._entities[0].analytics.pageViews).toBeGreaterThan(0);
    }
    expect(recorder.dashboards).toHaveLength(1);
  });

  it('two refusals on two replicas never name the same slot for two tables: the first retry at its retryAfter, on the other replica, is answered', async () => {
    // Issue 38 item 3 (three replicas, 88.9 %): an ask outside the table refused on one replica left its urls owed the
    // next slot, a ranking of a table nobody had refused on another left its whole table owed that same slot, and the
    // replica that got it fetched the whole table: the first retry was refused again.
    clock = new ClusterClock(Date.now());
    // Deadlines of 20 s: both asks are refused long before the next slot (63 s on).
    const analytics = { ...ANALYTICS, askDeadlineMs: 20_000 };
    replicas = await Promise.all([startReplica(analytics), startReplica(analytics)]);
    const { ranked } = await weekTable(replicas[0]);
    const outside = ranked[2 * MAX_ROWS];
    recorder.dashboards.length = 0;
    const answeredBefore = recorder.dashboardStatuses.length;
    const tailPanel = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews } } } }`;
    const monthRanking = `{ topArticles(window: { last: { number: 30, unit: DAY } }, limit: ${MAX_ROWS}) { article { url } } }`;
    const askTail = (replica: Replica) => postGraphQL(replica.graphqlUrl, tailPanel, { reps: articleRepresentations([outside]) });
    const askMonth = (replica: Replica) => postGraphQL(replica.graphqlUrl, monthRanking);

    const refusedAt = clock.now();
    const asking = Promise.all([askTail(replicas[0]), askMonth(replicas[1])]);
    // Both wait for the slot before the clock moves: their deadlines come together.
    await Promise.all(replicas.map((replica) => clock.waiting(replica.clock, 1)));
    const [tail, month] = await clock.runUntil(asking);
    const retryAfter = (result: typeof tail) => {
      expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
      return Number(result.errors?.[0].extensions?.retryAfter) * 1_000;
    };
    const retries = [
      { at: refusedAt + 20_000 + retryAfter(tail), ask: () => askTail(replicas[1]), urls: [outside] },
      { at: refusedAt + 20_000 + retryAfter(month), ask: () => askMonth(replicas[0]), urls: [] },
    ].sort((a, b) => a.at - b.at);
    // A slot apart (the queue counts a minute a slot at one a minute; the governor's slots are 63 s apart, and a
    // retry a little early waits for its slot within its deadline).
    expect(retries[1].at - retries[0].at).toBeGreaterThanOrEqual(58_000);

    // The first caller retries at its retryAfter, on the other replica: its numbers are there, fetched by the one query of
    // the slot its refusal named, for its table alone. (The test waits for that query's answer before it sends the retry:
    // the cluster's clock runs on while a query is in flight.)
    const [first] = retries;
    await clock.runUntil(clock.replica().sleep(first.at - clock.now()));
    await clock.runUntil(eventually(async () => recorder.dashboardStatuses.length === answeredBefore + 1, 30_000));
    const urlFilters = recorder.dashboards[0].filters.filter((filter) => filter.filter === 'url');
    expect(urlFilters.flatMap((filter) => [...filter.value])).toEqual(first.urls);
    const again = await clock.runUntil(first.ask());
    expect(again.errors).toBeUndefined();
    expect(recorder.dashboardStatuses.slice(answeredBefore)).toEqual([200]);
  });

  it("an ask outside the table whose slot went to a whole-table fetch for another replica's ask gets UPSTREAM_RATE_LIMITED with retryAfter", async () => {
    // Issue 29 item 14: the whole table fetched for the other replica's ask was handed to this ask although it lacks
    // its article, and the ask ended as INTERNAL_SERVER_ERROR "the numbers of this article were in no answer".
    clock = new ClusterClock(Date.now());
    // Deadlines of 150 s: past the slot after the first (126 s on), before the one after that (189 s on).
    replicas = [await startReplica({ ...ANALYTICS, askDeadlineMs: 150_000 })];
    const { redis } = await redisCases.connect('redis', { timeoutMs: 1_000 });
    const otherReplica = sharedAnalyticsBoard(redis, { analytics: ANALYTICS });
    const { top, ranked } = await weekTable(replicas[0]);
    const outside = ranked[2 * MAX_ROWS];
    recorder.dashboards.length = 0;

    // A metric the table lacks, for an article it ranks and one it lacks: the whole table at the next slot, then the other article alone.
    const asking = postGraphQL<{ _entities: { analytics: { totalDuration: number | null } | null }[] }>(
      replicas[0].graphqlUrl,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { totalDuration: metric(metric: TOTAL_DURATION) } } } }`,
      { reps: articleRepresentations([top[2], outside]) },
    );
    const answeredBefore = recorder.dashboardStatuses.length;
    // Answered (the emulator counted it against its budget), not only received.
    await clock.runUntil(eventually(async () => recorder.dashboardStatuses.length === answeredBefore + 1, 30_000));
    expect(recorder.dashboards[0].filters.some((filter) => filter.filter === 'url')).toBe(false);
    // Another replica now waits for the whole table with a metric it lacks: the slot after goes to the whole table again.
    await advanceClock(emulator, EMULATOR_SLOT_SECONDS);
    otherReplica.post(WEEK_TABLE.key, [{ metrics: ['pageViewsPerUser'], deadline: clock.now() + 100_000 }]);
    await otherReplica.posted();
    await clock.runUntil(eventually(async () => recorder.dashboardStatuses.length === answeredBefore + 2, 30_000));
    // The other replica's ask is answered by that table (from the shared store, at its next look): its post goes.
    otherReplica.post(WEEK_TABLE.key, []);
    await otherReplica.posted();
    const result = await clock.runUntil(asking);

    expect(recorder.dashboards).toHaveLength(2);
    expect(recorder.dashboardStatuses.slice(-2)).toEqual([200, 200]);
    expect(recorder.dashboards[1].filters.some((filter) => filter.filter === 'url')).toBe(false);
    expect(recorder.dashboards[1].metrics).toContain('pageViewsPerUser');
    expect(result.data?._entities[0].analytics?.totalDuration).toBeGreaterThan(0);
    // The article the table lacks: the budget's refusal (its `analytics` is null), never an internal error.
    expect(result.errors?.map((error) => [error.extensions?.code, error.path?.slice(0, 2)])).toEqual([
      ['UPSTREAM_RATE_LIMITED', ['_entities', 1]],
    ]);
    expect(result.errors?.[0].extensions?.retryAfter).toBeGreaterThan(0);
  });
});
