/**
 * Live numbers across replicas on a real redis-server: two replicas share
 * their tables (Redis) and the tables' "refreshed" event (a Redis channel).
 * A table written by one replica (as its refresh writes it) reaches the
 * subscribers of the other, with no vendor query of the other's.
 */
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, EMBEDDED_GOVERNOR_CONFIG } from '../../src/config';
import { TimeUnit } from '../../contract';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { connectRefreshChannel, type RefreshChannel } from '../../src/redis/reporting/refreshChannel';
import { sharedTableStore } from '../../src/redis/reporting/redisTableStore';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import type { TableStore } from '../../src/reporting/tables/tableStore';
import { redisUpstreamStores } from '../../src/redis/upstream/redisUpstreamStores';
import { buildTestServer } from '../support/services';
import { testConfig } from '../support/config';
import { demoUpstreams } from '../support/demoUpstreams';
import { contractRedis } from '../support/redisReplica';
import { describeWithRedis } from '../support/redisServer';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import { readStats, startSmallEmulator } from '../support/subgraphHttp';
import { subscribe, type Subscriber } from './support/subscriber';

jest.setTimeout(30_000);

const ANALYTICS = { ...DEFAULT_ANALYTICS_CONFIG, windowAlignSeconds: 3_600 };
/** The prefix contractRedis's connections use: the channel carries it too. */
const PREFIX = 'contract:';

interface Replica {
  wsUrl: string;
  /** The store this replica's tables write through, watched as they watch it. */
  watchedStore: TableStore;
  close(): Promise<void>;
}

interface Ranking {
  topArticles: { value: number; article: { url: string }; fetchedAt: string }[];
}

const redisCases = contractRedis();

describeWithRedis('live numbers across 2 replicas on Redis', () => {
  let emulator: RunningEmulator;
  const replicas: Replica[] = [];
  const subscribers: Subscriber<unknown>[] = [];

  beforeAll(async () => {
    emulator = await startSmallEmulator({ profile: 'realistic' });
  });

  afterEach(async () => {
    await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
    await Promise.all(replicas.splice(0).map((replica) => replica.close()));
  });

  afterAll(async () => {
    await emulator?.close();
  });

  async function startReplica(): Promise<Replica> {
    const { redis } = await redisCases.connect('redis', { timeoutMs: 1_000 });
    const upstreams = demoUpstreams({
      reportingBaseUrl: emulator.url,
      recommenderUrl: emulator.url,
      stores: redisUpstreamStores(redis),
      protection: { governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 1 } },
    });
    const tableRefreshes = new TableRefreshes();
    const channel: RefreshChannel = connectRefreshChannel(redis, PREFIX, tableRefreshes);
    const tableStore = sharedTableStore(redis, { analytics: ANALYTICS }, Date.now);
    const config = testConfig({ renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, analytics: ANALYTICS });
    const server = buildTestServer(config, {
      dashboard: upstreams.reporting,
      recommender: upstreams.recommender,
      logger: silentLogger,
      tableStore,
      tablesShared: true,
      refreshes: tableRefreshes,
    });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    const { port } = server.httpServer.address() as AddressInfo;
    const replica = {
      wsUrl: `ws://127.0.0.1:${port}/graphql`,
      watchedStore: tableRefreshes.watch(tableStore),
      close: async () => {
        await server.stop();
        await channel.close();
        await upstreams.close();
      },
    };
    replicas.push(replica);
    return replica;
  }

  it('a table written by one replica reaches the subscribers of the other, with no query of its own', async () => {
    const [writer, reader] = await Promise.all([startReplica(), startReplica()]);
    const before = (await readStats(emulator)).dashboard.count;
    const subscriber = subscribe<Ranking>(reader.wsUrl, `subscription { topArticles(limit: 3) { value article { url } fetchedAt } }`);
    subscribers.push(subscriber);
    const [first] = await subscriber.received(1);
    expect(first.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(before + 1);

    // The writer's refresh, as its tables write it: through its watched store, into Redis.
    const key = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 3 })).key;
    const table = await writer.watchedStore.table(key);
    if (table === undefined) throw new Error('the writer does not see the shared table');
    const [leader, values] = [...table.rows][0];
    const rows = new Map(table.rows).set(leader, { ...values, pageViewsTotal: (values.pageViewsTotal ?? 0) + 1_000_000 });
    // Fetched now (a fetchedAt in the future would be read back as now: src/redis/reporting/storedTable.ts).
    const fetchedAt = Math.max(Date.now(), table.fetchedAt + 1);
    await writer.watchedStore.setTable({ ...table, rows, fetchedAt });

    const [, second] = await subscriber.received(2);
    expect(second.data?.topArticles[0]).toEqual({
      value: (values.pageViewsTotal ?? 0) + 1_000_000,
      article: { url: leader },
      fetchedAt: new Date(fetchedAt).toISOString(),
    });
    expect((await readStats(emulator)).dashboard.count).toBe(before + 1);
  });
});
