/**
 * Helpers for the article-analytics tests and bench: the subgraph over real
 * HTTP against the emulator with every dashboard body it sends recorded, and
 * the direct dashboard query an article's numbers must equal.
 */
import type { AddressInfo } from 'node:net';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import type { AnalyticsConfig } from '../../src/config';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../src/kernel/wire';
import { Secret } from '../../src/redaction/secret';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';
import { createUpstreams } from '../../src/upstream/upstreams';
import { upstreamOptions } from './upstreamOptions';
import { apiToken, call } from './emulator';
import { DEFAULT_CACHE_TTLS, silentLogger } from './subgraph';
import { testConfig } from './config';
import { advanceClock } from './subgraphHttp';
import { buildTestServer } from './services';

/** The realistic profile's one dashboard query a minute, with the governor's margin: moving the emulator's clock this far gives it a slot again. */
export const EMULATOR_SLOT_SECONDS = 63;

export interface RecordingSubgraph {
  graphqlUrl: string;
  /** Every dashboard body the subgraph sent upstream, in order. */
  bodies: DashboardQueryBody[];
  close(): Promise<void>;
}

export async function startRecordingSubgraph(emulator: RunningEmulator, analytics: AnalyticsConfig): Promise<RecordingSubgraph> {
  const upstreams = createUpstreams(
    upstreamOptions({
      reportingBaseUrl: emulator.url,
      recommenderUrl: emulator.url,
      email: DEMO_API_USER.email,
      password: new Secret(DEMO_API_USER.password),
      timeoutMs: 5_000,
      logger: silentLogger,
    }),
  );
  const bodies: DashboardQueryBody[] = [];
  const reporting = {
    query: (body: DashboardQueryBody, grant?: SlotGrant) => {
      bodies.push(body);
      return upstreams.reporting.query(body, grant);
    },
    budget: upstreams.reporting.budget,
  };
  const server = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, analytics }), {
    dashboard: reporting,
    recommender: upstreams.recommender,
    logger: silentLogger,
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = server.httpServer.address() as AddressInfo;
  return {
    graphqlUrl: `http://127.0.0.1:${port}/graphql`,
    bodies,
    close: async () => {
      await server.stop();
      await upstreams.close();
    },
  };
}

/** An article's metrics straight from the emulator: one query filtered to that url, grouped by url, over [from, to]. */
export async function directArticleMetrics(
  emulator: RunningEmulator,
  token: string,
  url: string,
  window: { from: string; to: string },
  metrics: readonly MetricName[],
): Promise<Record<string, number>> {
  const body: DashboardQueryBody = {
    dates: { range: { start: window.from, end: window.to } },
    filters: [{ filter: 'url', op: 'eq', value: [url] }],
    groupBy: ['url'],
    metrics: [...metrics],
    order: { metric: metrics[0], sort: 'DESC' },
    limit: 1,
  };
  const response = await call<DashboardMetricResultWire[]>(emulator, '/api/dashboard/query', { body, token });
  if (response.status !== 200) throw new Error(`direct dashboard query answered ${response.status}`);
  return Object.fromEntries(response.body.map((result) => [result.metric, result.actualData.values[0]?.total ?? 0]));
}

/** `_entities` representations of Article urls. */
export function articleRepresentations(urls: readonly string[]): { __typename: 'Article'; url: string }[] {
  return urls.map((url) => ({ __typename: 'Article', url }));
}

/** Every url of a window, most read first, straight from the emulator: one query, at the emulator's next slot (its clock moved a slot on). */
export async function urlsByPageViews(emulator: RunningEmulator, token: string, window: { from: string; to: string }): Promise<string[]> {
  await advanceClock(emulator, EMULATOR_SLOT_SECONDS);
  return mostReadUrls(emulator, token, window, 500);
}

/** The `limit` most read urls of a window, straight from the emulator (one query of its budget, at its clock as it is). */
async function mostReadUrls(
  emulator: RunningEmulator,
  token: string,
  window: { from: string; to: string },
  limit: number,
): Promise<string[]> {
  const body: DashboardQueryBody = {
    dates: { range: { start: window.from, end: window.to } },
    filters: [],
    groupBy: ['url'],
    metrics: ['pageViewsTotal'],
    order: { metric: 'pageViewsTotal', sort: 'DESC' },
    limit,
  };
  const response = await call<DashboardMetricResultWire[]>(emulator, '/api/dashboard/query', { body, token });
  if (response.status !== 200) throw new Error(`direct dashboard query answered ${response.status}`);
  return response.body[0].actualData.values.map((row) => String(row.items[0].value));
}

/** An article of the test's own: its url, and optionally the section it is filed under. */
export interface OwnArticle {
  url: string;
  section?: string;
}

export interface IngestOptions {
  /** When the page views happened (epoch ms, at most a minute past the emulator's clock): inside the window the test ranks over. */
  at: number;
  /** A token of the demo API user, for `POST /metadata/posts`; signed in here when absent (one sign-in the emulator counts). */
  token?: string;
}

/** The emulator takes at most this many rows per ingestion request. */
const INGEST_BATCH_ROWS = 10_000;

/**
 * Makes `articles` the most read of any window that holds `at`, in the order
 * given, and returns their urls most read first: a test that ranks articles
 * ranks its own, never whatever the demo data (generated relative to the
 * emulator's start instant) happens to rank first today. Each article is
 * added to the emulator (`POST /metadata/posts`) and gets page views
 * (`POST /ingest/pageviews`, one reader each) at `at`: the first one more
 * than any article the emulator holds has in all (so more than any demo
 * article has in any window), each next one a view fewer.
 */
export async function ingestMostRead(
  emulator: RunningEmulator,
  articles: readonly OwnArticle[],
  options: IngestOptions,
): Promise<string[]> {
  const urls = articles.map((article) => article.url);
  if (new Set(urls).size !== urls.length) throw new Error('ingestMostRead: each article once');
  if (urls.some((url) => emulator.store.articleIndex(url) !== undefined))
    throw new Error('ingestMostRead: articles of the test’s own, not ones the emulator holds');
  const token = options.token ?? (await apiToken(emulator));
  const publishTime = new Date(options.at - 24 * 3_600_000).toISOString();
  const posted = await call<{ accepted: number }>(emulator, '/metadata/posts', {
    token,
    body: articles.map(({ url, section }) => {
      const domain = new URL(url).hostname;
      return {
        url,
        domain,
        title: `Test article ${url}`,
        img: `https://${domain}/img/test.jpg`,
        authors: ['Test Writer'],
        sections: [section ?? 'Tests'],
        publishTime,
      };
    }),
  });
  if (posted.status !== 200 || posted.body.accepted !== articles.length)
    throw new Error(`posting the articles answered ${posted.status} ${JSON.stringify(posted.body)}`);

  const most = mostPageViewsOfAnyArticle(emulator);
  const views = urls.flatMap((url, rank) =>
    Array.from({ length: most + urls.length - rank }, (_, view) => ({
      url,
      clientId: `test-reader-${rank}-${view}`,
      timestamp: options.at,
    })),
  );
  for (let start = 0; start < views.length; start += INGEST_BATCH_ROWS) {
    const batch = views.slice(start, start + INGEST_BATCH_ROWS);
    const ingested = await call<{ accepted: number }>(emulator, '/ingest/pageviews', { body: batch });
    if (ingested.status !== 200 || ingested.body.accepted !== batch.length)
      throw new Error(`ingesting page views answered ${ingested.status} ${JSON.stringify(ingested.body)}`);
  }
  return urls;
}

/** The most page views any one article has in the emulator's store, over all time (read in process: spends no budget). */
function mostPageViewsOfAnyArticle(emulator: RunningEmulator): number {
  const { views } = emulator.store;
  const counts = new Map<number, number>();
  for (let row = 0; row < views.length; row += 1) {
    const article = views.article.data[row];
    counts.set(article, (counts.get(article) ?? 0) + 1);
  }
  return Math.max(0, ...counts.values());
}
