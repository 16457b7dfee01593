/**
 * What the analytics tables show, over real HTTP against the realistic
 * emulator: their series on /metrics (asks per query, asks waiting, table
 * age, refusals by reason) and, in the operation log, how each ask was answered.
 */
import { testConfig } from '../support/config';
import { upstreamOptions } from '../support/upstreamOptions';
import type { AddressInfo } from 'node:net';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/config';
import { Metrics } from '../../src/observability/metrics/metrics';
import { Secret } from '../../src/redaction/secret';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import type { BuiltServer } from '../../src/web/server';
import { articleRepresentations } from '../support/analytics';
import { postGraphQL } from '../support/federationGateway';
import { countOf, scrape, valueOf } from '../support/metricsText';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import { startSmallEmulator } from '../support/subgraphHttp';
import { METRICS_DEFAULTS } from '../../src/config';
import { buildTestServer } from '../support/services';

let emulator: RunningEmulator;
let upstreams: Upstreams;
let server: BuiltServer;
let baseUrl: string;
const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
const lines: Record<string, unknown>[] = [];
const logger = { ...silentLogger, info: (fields: Record<string, unknown>) => void lines.push(fields) };

beforeAll(async () => {
  emulator = await startSmallEmulator({ profile: 'realistic', rates: { reportingPerMinute: 600 } });
  upstreams = createUpstreams(
    upstreamOptions({
      reportingBaseUrl: emulator.url,
      recommenderUrl: emulator.url,
      email: DEMO_API_USER.email,
      password: new Secret(DEMO_API_USER.password),
      timeoutMs: 10_000,
      logger: silentLogger,
    }),
  );
  server = buildTestServer(testConfig({ renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, analytics: DEFAULT_ANALYTICS_CONFIG }), {
    dashboard: upstreams.reporting,
    recommender: upstreams.recommender,
    logger,
    metrics,
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server?.stop();
  await upstreams?.close();
  await emulator?.close();
});

const PANELS = `query Panels($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews revenue } } } }`;
const PAGE_VIEWS = `query Views($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews } } } }`;

it('counts asks per query, refusals by reason and table age, and logs how each ask was answered', async () => {
  const reps = articleRepresentations(emulator.store.articles.slice(0, 3).map((article) => article.url));
  const first = await postGraphQL(`${baseUrl}/graphql`, PAGE_VIEWS, { reps });
  expect(first.errors).toBeUndefined();
  const second = await postGraphQL(`${baseUrl}/graphql`, PANELS, { reps });
  expect(second.errors?.every((error) => error.extensions?.code === 'UPSTREAM_METRIC_UNAVAILABLE')).toBe(true);

  const families = await scrape(`${baseUrl}/metrics`);
  // The table answered one ask (the operation's batch of 3 articles); the query that learnt REVENUE_TOTAL answered none.
  expect(await countOf(metrics.registry, 'subgraph_analytics_asks_per_query')).toBe(1);
  expect(valueOf(families, 'subgraph_analytics_refusals_total', { reason: 'metric_unavailable' })).toBe(1);
  expect(valueOf(families, 'subgraph_analytics_asks_waiting')).toBe(0);
  expect(valueOf(families, 'subgraph_analytics_table_age_seconds', { table: 'last_7_day_pageViewsTotal' })).toBeGreaterThanOrEqual(0);
  expect(families.find((family) => family.name === 'subgraph_analytics_table_age_seconds')?.metrics).toHaveLength(1);

  const operations = lines.filter((line) => line.operationName === 'Views' || line.operationName === 'Panels');
  expect(operations.map((line) => [line.operationName, line.analyticsAsks])).toEqual([
    ['Views', { fresh: 3 }],
    ['Panels', { table: 3 }],
  ]);
});
