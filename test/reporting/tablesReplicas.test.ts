/**
 * Three replicas sharing their analytics tables through a real redis-server,
 * against the emulator's realistic profile with its real budget (one
 * dashboard query a minute, 429 beyond): one replica fetches, every replica
 * serves, and the cluster sends one query.
 */
import { testConfig } from '../support/config';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, EMBEDDED_GOVERNOR_CONFIG } from '../../src/config';
import { sharedTableStore } from '../../src/redis/reporting/redisTableStore';
import { redisUpstreamStores } from '../../src/redis/upstream/redisUpstreamStores';
import { buildTestServer } from '../support/services';
import { articleRepresentations } from '../support/analytics';
import { postGraphQL } from '../support/federationGateway';
import { contractRedis } from '../support/redisReplica';
import { describeWithRedis } from '../support/redisServer';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import { readStats, startSmallEmulator } from '../support/subgraphHttp';
import { demoUpstreams } from '../support/demoUpstreams';

// An hour's alignment: the replicas' tables are one body even when the test crosses a minute.
const ANALYTICS = { ...DEFAULT_ANALYTICS_CONFIG, windowAlignSeconds: 3_600 };

interface Started {
  graphqlUrl: string;
  close(): Promise<void>;
}

const redisCases = contractRedis();

describeWithRedis('analytics tables across 3 replicas on Redis', () => {
  let emulator: RunningEmulator;
  const replicas: Started[] = [];

  beforeAll(async () => {
    emulator = await startSmallEmulator({ profile: 'realistic' });
  });

  afterAll(async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.close()));
    await emulator?.close();
  });

  async function startReplica(): Promise<Started> {
    const { redis } = await redisCases.connect('redis', { timeoutMs: 1_000 });
    const upstreams = demoUpstreams({
      reportingBaseUrl: emulator.url,
      recommenderUrl: emulator.url,
      stores: redisUpstreamStores(redis),
      protection: { governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 1 } },
    });
    const config = testConfig({ renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, analytics: ANALYTICS });
    const server = buildTestServer(config, {
      dashboard: upstreams.reporting,
      recommender: upstreams.recommender,
      logger: silentLogger,
      tableStore: sharedTableStore(redis, config, Date.now),
      tablesShared: true,
    });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    const { port } = server.httpServer.address() as AddressInfo;
    const started = {
      graphqlUrl: `http://127.0.0.1:${port}/graphql`,
      close: async () => {
        await server.stop();
        await upstreams.close();
      },
    };
    replicas.push(started);
    return started;
  }

  const PANELS = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { from to pageViews fetchedAt } } } }`;

  it('one replica fetches, every replica serves: one dashboard query for the cluster, all asks answered', async () => {
    const cluster = await Promise.all([startReplica(), startReplica(), startReplica()]);
    const urls = emulator.store.articles.map((article) => article.url);

    const first = await Promise.all(
      cluster.map((replica, index) =>
        postGraphQL(replica.graphqlUrl, PANELS, { reps: articleRepresentations(urls.slice(index * 3, index * 3 + 3)) }),
      ),
    );
    for (const result of first) expect(result.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(1);

    const later = await Promise.all(
      cluster.map((replica, index) =>
        postGraphQL(replica.graphqlUrl, PANELS, { reps: articleRepresentations(urls.slice(10 + index, 11 + index)) }),
      ),
    );
    const ranking = await postGraphQL(
      cluster[2].graphqlUrl,
      `{ topArticles(window: { last: { number: 7, unit: DAY } }, limit: 3) { rank } }`,
    );
    for (const result of [...later, ranking]) expect(result.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(1);
    const fetchedAt = new Set(
      [...first, ...later].flatMap((result) =>
        ((result.data as { _entities: { analytics: { fetchedAt: string } }[] }) ?? { _entities: [] })._entities.map(
          (entity) => entity.analytics.fetchedAt,
        ),
      ),
    );
    expect(fetchedAt.size).toBe(1);
  });
});
