import { runLoad, type LoadResult } from '../load';
import { spawnSubgraph, type SubgraphProcess } from '../processes';
import { cpuMicros, spawnListening, subgraphEnvOver, type ListeningProcess, type Measured } from './processes';

/*
 * The same `recommendations` operation over the same trivial upstream,
 * through this subgraph and through a minimal Apollo Server 5 subgraph,
 * side by side and interleaved (the order alternates per repetition), so that
 * the machine's background noise falls on both alike.
 */

const CONCURRENCIES = [1, 8, 50] as const;
const REPETITIONS = 3;
const REQUESTS = 3000;
const WARMUP = 300;

const QUERY =
  'query($id: ID!, $url: String, $client: ID) { recommendations(experienceId: $id, canonicalUrl: $url, clientId: $client) ' +
  '{ position url title img authors sections publishTime publishedAt } }';
const URLS = Array.from({ length: 17 }, (_, i) => `https://dailyglobe.example/world/2026/11/20/story-${i}`);
const CLIENTS = Array.from({ length: 40 }, (_, i) => `c_${String(i).padStart(6, '0')}`);

export interface Pair {
  concurrency: number;
  baseline: Measured[];
  subgraph: Measured[];
  /** Another build of this subgraph (BENCH_PREVIOUS_BUILD), measured in the same rotation. */
  previous: Measured[];
}

export interface OverheadFigures {
  pairs: Pair[];
  /** render.json straight to the trivial upstream, one at a time, per repetition. */
  direct: LoadResult[];
  /** This subgraph at 8 in flight, with and without `apollo-federation-include-trace: ftv1`, per repetition. */
  ftv1: { without: Measured[]; with: Measured[] };
}

export interface OverheadTargets {
  upstream: ListeningProcess;
  baseline: ListeningProcess;
  subgraph: SubgraphProcess;
  previous?: SubgraphProcess;
  stop(): Promise<void>;
}

/**
 * Starts the trivial upstream, the baseline and this subgraph (both
 * NODE_ENV=production), each in its own process; with `previousEntry` (e.g.
 * an older commit's `dist/src/index.js`), that build too, for before/after
 * figures from one interleaved run.
 */
export async function startOverheadTargets(subgraphNodeArgs: string[] = [], previousEntry?: string): Promise<OverheadTargets> {
  const upstream = await spawnListening('trivialUpstream.ts', {});
  const baseline = await spawnListening('baselineSubgraph.ts', { NODE_ENV: 'production', UPSTREAM_URL: upstream.url });
  // No answer cache (another feature): both subgraphs must make every upstream call.
  const subgraphEnv = { ...subgraphEnvOver(upstream.url), RENDER_CACHE_TTL_SECONDS: '0' };
  const subgraph = await spawnSubgraph(subgraphEnv, subgraphNodeArgs);
  const previous = previousEntry === undefined ? undefined : await spawnSubgraph(subgraphEnv, [], previousEntry);
  return {
    upstream,
    baseline,
    subgraph,
    previous,
    stop: async () => {
      await previous?.stop();
      await subgraph.stop();
      await baseline.stop();
      await upstream.stop();
    },
  };
}

async function measure(target: { url: string; pid: number }, concurrency: number, headers?: Record<string, string>): Promise<Measured> {
  const before = cpuMicros(target.pid);
  const result = await loadGraphQL(target.url, concurrency, REQUESTS, headers);
  return { ...result, cpuMicrosPerRequest: (cpuMicros(target.pid) - before) / (REQUESTS + WARMUP) };
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
  const pairs: Pair[] = CONCURRENCIES.map((concurrency) => ({ concurrency, baseline: [], subgraph: [], previous: [] }));
  const direct: LoadResult[] = [];
  const ftv1: OverheadFigures['ftv1'] = { without: [], with: [] };
  const renderUrl = (i: number) =>
    `${targets.upstream.url}/recommenderexperience/render.json?${new URLSearchParams({ id: 'IL_bench', canonical_url: URLS[i % URLS.length], client_id: CLIENTS[i % CLIENTS.length] })}`;
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    direct.push(
      await runLoad({ concurrency: 1, requests: REQUESTS, warmup: WARMUP, build: (i) => ({ method: 'GET', url: renderUrl(i) }) }),
    );
    for (const pair of pairs) {
      const runs = [
        async () => pair.baseline.push(await measure(targets.baseline, pair.concurrency)),
        async () => pair.subgraph.push(await measure(targets.subgraph, pair.concurrency)),
      ];
      const previous = targets.previous;
      if (previous !== undefined) runs.push(async () => pair.previous.push(await measure(previous, pair.concurrency)));
      // Each repetition starts with a different target, so none always runs first (or last).
      for (let i = 0; i < runs.length; i++) await runs[(i + repetition) % runs.length]();
    }
    ftv1.without.push(await measure(targets.subgraph, 8));
    ftv1.with.push(await measure(targets.subgraph, 8, { 'apollo-federation-include-trace': 'ftv1' }));
  }
  return { pairs, direct, ftv1 };
}
