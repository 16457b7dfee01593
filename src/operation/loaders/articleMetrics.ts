import DataLoader from 'dataloader';
import {
  articleMetricsQuery,
  canonicalMetrics,
  chunkUrls,
  tabulateByUrl,
  type ArticleMetricTable,
} from '../../reporting/analytics/articleMetricsQuery';
import type { ResolvedWindow } from '../../reporting/analytics/window';
import type { Fetched } from '../../upstream/datasources/fetched';
import { DASHBOARD_QUERY_PATH } from '../../upstream/datasources/reportingAPI';
import type { MetricName } from '../../upstream/datasources/wire';
import { UpstreamError } from '../../upstream/failures/upstreamError';
import type { DashboardEndpoint } from '../../upstream/endpoints/dashboard';

/** One number: one metric of one article over one window. */
export interface ArticleMetricKey {
  window: ResolvedWindow;
  url: string;
  metric: MetricName;
}

export type ArticleMetricsLoader = DataLoader<ArticleMetricKey, Fetched<number>, string>;

export interface ArticleMetricsLoaderOptions {
  /** Most URLs one dashboard query carries (ANALYTICS_CHUNK_SIZE). */
  chunkSize: number;
  /** REPORTING_MAX_ROWS: no chunk asks for more rows than one query may return. Default DEFAULT_MAX_ROWS. */
  maxRows?: number;
}

function articleMetricCacheKey(key: ArticleMetricKey): string {
  return JSON.stringify([key.window.key, key.url, key.metric]);
}

/**
 * One loader per GraphQL operation (built in the context factory): every
 * `Article.analytics` of the operation, whatever its aliases and selections,
 * lands in one batch, which becomes one dashboard query per distinct window
 * (more only when the URLs exceed a chunk).
 */
export function createArticleMetricsLoader(reporting: DashboardEndpoint, options: ArticleMetricsLoaderOptions): ArticleMetricsLoader {
  return new DataLoader(articleMetricsBatch(reporting, options), { cacheKeyFn: articleMetricCacheKey, name: 'articleMetrics' });
}

/** What one window's keys ask for together: the union of their URLs and of their metrics. */
interface WindowDemand {
  window: ResolvedWindow;
  urls: Set<string>;
  metrics: Set<MetricName>;
}

/** One chunk's answer, or why it failed; every URL of the chunk shares it. */
type ChunkOutcome = { table: ArticleMetricTable; fetchedAt: number } | Error;

/** The batch function, exported for tests of its contract. */
export function articleMetricsBatch(
  reporting: DashboardEndpoint,
  options: ArticleMetricsLoaderOptions,
): (keys: readonly ArticleMetricKey[]) => Promise<(Fetched<number> | Error)[]> {
  return async (keys) => {
    const demands = collectDemands(keys);
    const outcomes = new Map<string, Map<string, ChunkOutcome>>();
    await Promise.all(
      [...demands.values()].map(async (demand) =>
        outcomes.set(demand.window.key, await fetchWindow(reporting, demand, options.chunkSize, options.maxRows)),
      ),
    );
    return keys.map((key) => valueFor(key, outcomes.get(key.window.key)?.get(key.url)));
  };
}

function collectDemands(keys: readonly ArticleMetricKey[]): Map<string, WindowDemand> {
  const demands = new Map<string, WindowDemand>();
  for (const { window, url, metric } of keys) {
    let demand = demands.get(window.key);
    if (demand === undefined) {
      demand = { window, urls: new Set(), metrics: new Set() };
      demands.set(window.key, demand);
    }
    demand.urls.add(url);
    demand.metrics.add(metric);
  }
  return demands;
}

/** url → the outcome of the chunk that carried it. Chunks are settled separately: one failure keeps the others' numbers. */
async function fetchWindow(
  reporting: DashboardEndpoint,
  demand: WindowDemand,
  chunkSize: number,
  maxRows: number | undefined,
): Promise<Map<string, ChunkOutcome>> {
  const metrics = canonicalMetrics(demand.metrics);
  const chunks = chunkUrls(demand.urls, chunkSize, maxRows);
  const settled = await Promise.allSettled(chunks.map((urls) => reporting.query(articleMetricsQuery(demand.window, urls, metrics))));
  const byUrl = new Map<string, ChunkOutcome>();
  settled.forEach((outcome, index) => {
    const chunkOutcome: ChunkOutcome =
      outcome.status === 'fulfilled'
        ? { table: tabulateByUrl(outcome.value.value), fetchedAt: outcome.value.fetchedAt }
        : asError(outcome.reason);
    for (const url of chunks[index]) byUrl.set(url, chunkOutcome);
  });
  return byUrl;
}

/** An article the answer has no row for had no page views in the window: 0, as the schema promises. */
function valueFor(key: ArticleMetricKey, outcome: ChunkOutcome | undefined): Fetched<number> | Error {
  if (outcome === undefined) return new Error(`articleMetrics batch lost the key ${articleMetricCacheKey(key)}`);
  if (outcome instanceof Error) return outcome;
  const byUrl = outcome.table.get(key.metric);
  if (byUrl === undefined) {
    return new UpstreamError({
      service: 'reporting',
      endpoint: DASHBOARD_QUERY_PATH,
      kind: 'bad_response',
      reason: `the answer has no result for the requested metric ${key.metric}`,
    });
  }
  return { value: byUrl.get(key.url) ?? 0, fetchedAt: outcome.fetchedAt };
}

/** DataLoader treats only Error instances as failures; anything else thrown would be cached as a value. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`dashboard query failed: ${String(reason)}`);
}
