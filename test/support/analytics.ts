/**
 * Helpers for the article-analytics tests and bench: the subgraph over real
 * HTTP against the emulator with every dashboard body it sends recorded, and
 * the direct dashboard query an article's numbers must equal.
 */
import type { AddressInfo } from 'node:net';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import type { AnalyticsConfig } from '../../src/config';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../src/upstream/datasources/wire';
import { Secret } from '../../src/redaction/secret';
import { buildServer } from '../../src/web/server';
import { createUpstreams } from '../../src/upstream/upstreams';
import { upstreamOptions } from './upstreamOptions';
import { call } from './emulator';
import { DEFAULT_CACHE_TTLS, silentLogger } from './subgraph';
import { testConfig } from './config';
import { advanceClock } from './subgraphHttp';

/** The realistic profile's one dashboard query a minute, with the governor's margin: moving the emulator's clock this far gives it a unit again. */
export const EMULATOR_UNIT_SECONDS = 63;

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
    query: (body: DashboardQueryBody) => {
      bodies.push(body);
      return upstreams.reporting.query(body);
    },
  };
  const server = buildServer(testConfig({ production: false, renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, analytics }), {
    reporting,
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

/** Every url of a window, most read first, straight from the emulator: one query, at the emulator's next unit (its clock moved a unit on). */
export async function urlsByPageViews(emulator: RunningEmulator, token: string, window: { from: string; to: string }): Promise<string[]> {
  await advanceClock(emulator, EMULATOR_UNIT_SECONDS);
  return mostReadUrls(emulator, token, window, 500);
}

/** The `limit` most read urls of a window, straight from the emulator (one query of its budget, at its clock as it is). */
export async function mostReadUrls(
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
