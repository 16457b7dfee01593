import { DEMO_EMAIL, DEMO_PASSWORD } from '../upstreamClient';
import { runLoad, type LoadResult } from '../load';
import { spawnSubgraph, type SubgraphProcess } from '../processes';
import { spawnListening, type ListeningProcess } from './processes';

/*
 * The same `recommendations` operation over the same trivial upstream,
 * through this subgraph and through a minimal Apollo Server 5 subgraph,
 * side by side and interleaved (the order alternates per repetition), so that
 * the machine's background noise falls on both alike.
 */

export const CONCURRENCIES = [1, 8, 50] as const;
export const REPETITIONS = 3;
const REQUESTS = 3000;
const WARMUP = 300;

const QUERY =
  'query($id: ID!, $url: String, $client: ID) { recommendations(experienceId: $id, canonicalUrl: $url, clientId: $client) ' +
  '{ position url title img authors sections publishTime publishedAt } }';
const URLS = Array.from({ length: 17 }, (_, i) => `https://dailyglobe.example/world/2026/11/20/story-${i}`);
const CLIENTS = Array.from({ length: 40 }, (_, i) => `c_${String(i).padStart(6, '0')}`);

export interface Pair {
  concurrency: number;
  baseline: LoadResult[];
  subgraph: LoadResult[];
}

export interface OverheadFigures {
  pairs: Pair[];
  /** render.json straight to the trivial upstream, one at a time, per repetition. */
  direct: LoadResult[];
  /** This subgraph at 8 in flight, with and without `apollo-federation-include-trace: ftv1`, per repetition. */
  ftv1: { without: LoadResult[]; with: LoadResult[] };
}

export interface OverheadTargets {
  upstream: ListeningProcess;
  baseline: ListeningProcess;
  subgraph: SubgraphProcess;
  stop(): Promise<void>;
}

/** Starts the trivial upstream, the baseline and this subgraph (both NODE_ENV=production), each in its own process. */
export async function startOverheadTargets(subgraphNodeArgs: string[] = []): Promise<OverheadTargets> {
  const upstream = await spawnListening('trivialUpstream.ts', {});
  const baseline = await spawnListening('baselineSubgraph.ts', { NODE_ENV: 'production', UPSTREAM_URL: upstream.url });
  const subgraph = await spawnSubgraph(
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      REPORTING_BASE_URL: upstream.url,
      RECOMMENDER_URL: upstream.url,
      REPORTING_EMAIL: DEMO_EMAIL,
      REPORTING_PASSWORD: DEMO_PASSWORD,
      // No answer cache (another feature): both subgraphs must make every upstream call.
      RENDER_CACHE_TTL_SECONDS: '0',
    },
    subgraphNodeArgs,
  );
  return {
    upstream,
    baseline,
    subgraph,
    stop: async () => {
      await subgraph.stop();
      await baseline.stop();
      await upstream.stop();
    },
  };
}

export function loadGraphQL(url: string, concurrency: number, requests = REQUESTS, headers?: Record<string, string>): Promise<LoadResult> {
  return runLoad({
    concurrency,
    requests,
    warmup: WARMUP,
    headers,
    build: (i) => ({
      method: 'POST',
      url,
      body: { query: QUERY, variables: { id: 'IL_bench', url: URLS[i % URLS.length], client: CLIENTS[i % CLIENTS.length] } },
    }),
  });
}

export async function benchOverhead(targets: OverheadTargets): Promise<OverheadFigures> {
  const pairs: Pair[] = CONCURRENCIES.map((concurrency) => ({ concurrency, baseline: [], subgraph: [] }));
  const direct: LoadResult[] = [];
  const ftv1: OverheadFigures['ftv1'] = { without: [], with: [] };
  const renderUrl = (i: number) =>
    `${targets.upstream.url}/recommenderexperience/render.json?${new URLSearchParams({ id: 'IL_bench', canonical_url: URLS[i % URLS.length], client_id: CLIENTS[i % CLIENTS.length] })}`;
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    const baselineFirst = repetition % 2 === 0;
    direct.push(
      await runLoad({ concurrency: 1, requests: REQUESTS, warmup: WARMUP, build: (i) => ({ method: 'GET', url: renderUrl(i) }) }),
    );
    for (const pair of pairs) {
      const runs = [
        async () => pair.baseline.push(await loadGraphQL(targets.baseline.url, pair.concurrency)),
        async () => pair.subgraph.push(await loadGraphQL(targets.subgraph.url, pair.concurrency)),
      ];
      for (const run of baselineFirst ? runs : runs.reverse()) await run();
    }
    ftv1.without.push(await loadGraphQL(targets.subgraph.url, 8));
    ftv1.with.push(await loadGraphQL(targets.subgraph.url, 8, REQUESTS, { 'apollo-federation-include-trace': 'ftv1' }));
  }
  return { pairs, direct, ftv1 };
}
