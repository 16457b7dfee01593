import { runLoad } from './load';
import { cpuMicros, spawnListening, subgraphEnvOver, type ListeningProcess, type Measured } from './overhead/processes';
import { spawnSubgraph, type SubgraphProcess } from './processes';

/*
 * Repeated identical public operations, the traffic a router sends for the
 * same front page: this subgraph with the response cache on, with it off
 * (RESPONSE_CACHE_ENABLED=false; its answer cache still on, so every field is
 * answered from it), and the minimal Apollo Server 5 subgraph
 * (bench/overhead/baselineSubgraph.ts), over the same trivial upstream, each in
 * its own process, interleaved (the order rotates per repetition).
 */

const CONCURRENCIES = [8, 50] as const;
const REPETITIONS = 3;
const REQUESTS = 3000;
const WARMUP = 300;
const EXPERIENCE = 'IL_bench';

interface Operation {
  name: string;
  body: { query: string; variables: Record<string, unknown> };
}

const OPERATIONS: Operation[] = [
  {
    name: '`recommendations` (no clientId)',
    body: {
      query:
        'query Front($id: ID!, $domain: String) { recommendations(experienceId: $id, domain: $domain) ' +
        '{ url title img authors sections publishTime } }',
      variables: { id: EXPERIENCE, domain: 'dailyglobe.example' },
    },
  },
  {
    name: '`_entities`, 30 × `Article.related`',
    body: {
      query:
        'query($representations: [_Any!]!, $id: ID!) { _entities(representations: $representations) ' +
        '{ ... on Article { related(experienceId: $id) { url title img authors sections publishTime } } } }',
      variables: {
        id: EXPERIENCE,
        representations: Array.from({ length: 30 }, (_, i) => ({
          __typename: 'Article',
          url: `https://dailyglobe.example/world/2026/11/20/story-${i}`,
        })),
      },
    },
  },
];

type TargetName = 'cache on' | 'cache off' | 'minimal Apollo';
const TARGET_NAMES: TargetName[] = ['cache on', 'cache off', 'minimal Apollo'];

interface Cell {
  operation: string;
  concurrency: number;
  runs: Record<TargetName, Measured[]>;
}

export interface ResponseCacheTargets {
  targets: Record<TargetName, { url: string; pid: number }>;
  /** Whether the "cache off" process really answers without the response cache (RESPONSE_CACHE_ENABLED wired). */
  offHonoured: boolean;
  stop(): Promise<void>;
}

/** A response-cache hit carries an `age` header; an executed operation does not. */
async function servedFromResponseCache(url: string): Promise<boolean> {
  const post = () =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OPERATIONS[0].body) });
  await (await post()).text();
  const second = await post();
  await second.text();
  return second.headers.has('age');
}

export async function startResponseCacheTargets(): Promise<ResponseCacheTargets> {
  const upstream: ListeningProcess = await spawnListening('trivialUpstream.ts', {});
  const baseline = await spawnListening('baselineSubgraph.ts', { NODE_ENV: 'production', UPSTREAM_URL: upstream.url });
  // Cacheable answers (the default TTL, stated here): what the response cache stores and the answer cache serves.
  const env = { ...subgraphEnvOver(upstream.url), RENDER_CACHE_TTL_SECONDS: '60' };
  const on: SubgraphProcess = await spawnSubgraph({ ...env, RESPONSE_CACHE_ENABLED: 'true' });
  const off: SubgraphProcess = await spawnSubgraph({ ...env, RESPONSE_CACHE_ENABLED: 'false' });
  return {
    targets: { 'cache on': on, 'cache off': off, 'minimal Apollo': baseline },
    offHonoured: !(await servedFromResponseCache(off.url)),
    stop: async () => {
      await off.stop();
      await on.stop();
      await baseline.stop();
      await upstream.stop();
    },
  };
}

async function measure(target: { url: string; pid: number }, operation: Operation, concurrency: number): Promise<Measured> {
  const before = cpuMicros(target.pid);
  const result = await runLoad({
    concurrency,
    requests: REQUESTS,
    warmup: WARMUP,
    build: () => ({ method: 'POST', url: target.url, body: operation.body }),
  });
  return { ...result, cpuMicrosPerRequest: (cpuMicros(target.pid) - before) / (REQUESTS + WARMUP) };
}

export async function benchResponseCache(targets: ResponseCacheTargets): Promise<Cell[]> {
  const cells: Cell[] = OPERATIONS.flatMap((operation) =>
    CONCURRENCIES.map((concurrency) => ({
      operation: operation.name,
      concurrency,
      runs: { 'cache on': [], 'cache off': [], 'minimal Apollo': [] },
    })),
  );
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    for (const cell of cells) {
      const operation = OPERATIONS.find((candidate) => candidate.name === cell.operation) as Operation;
      // Each repetition starts with a different target, so none always runs first (or last).
      for (let i = 0; i < TARGET_NAMES.length; i++) {
        const name = TARGET_NAMES[(i + repetition) % TARGET_NAMES.length];
        cell.runs[name].push(await measure(targets.targets[name], operation, cell.concurrency));
      }
    }
  }
  return cells;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median over repetitions of a ÷ b, each repetition's runs measured back to back. */
function pairedRatio(a: Measured[], b: Measured[], pick: (r: Measured) => number): string {
  return median(a.map((result, index) => pick(result) / pick(b[index]))).toFixed(2);
}

function figures(runs: Measured[]): string {
  const errors = runs.reduce((sum, run) => sum + run.errors, 0);
  return (
    `${median(runs.map((r) => r.throughputPerSecond)).toFixed(0)}/s, p99 ${median(runs.map((r) => r.p99)).toFixed(2)} ms, ` +
    `CPU ${Math.round(median(runs.map((r) => r.cpuMicrosPerRequest)))} µs${errors > 0 ? ` (${errors} errors)` : ''}`
  );
}

export function responseCacheReport(cells: Cell[], offHonoured: boolean): string {
  const throughput = (r: Measured) => r.throughputPerSecond;
  const p99 = (r: Measured) => r.p99;
  const cpu = (r: Measured) => r.cpuMicrosPerRequest;
  const lines = [
    `Medians of ${REPETITIONS} interleaved repetitions of ${REQUESTS} requests (after ${WARMUP} warm-up); CPU is the process's user + system time per request; ratios are medians of per-repetition ratios.`,
    '',
    '| operation | in flight | cache on | cache off | minimal Apollo | throughput on ÷ minimal | p99 on ÷ minimal | CPU on ÷ minimal | CPU off ÷ minimal |',
    '|---|---|---|---|---|---|---|---|---|',
    ...cells.map((cell) => {
      const { 'cache on': on, 'cache off': off, 'minimal Apollo': minimal } = cell.runs;
      return (
        `| ${cell.operation} | ${cell.concurrency} | ${figures(on)} | ${figures(off)} | ${figures(minimal)} | ` +
        `${pairedRatio(on, minimal, throughput)} | ${pairedRatio(on, minimal, p99)} | ${pairedRatio(on, minimal, cpu)} | ${pairedRatio(off, minimal, cpu)} |`
      );
    }),
    '',
  ];
  if (!offHonoured) {
    lines.push(
      '**Warning**: the "cache off" process still served hits (RESPONSE_CACHE_ENABLED not honoured): its figures are the cache\'s.',
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}
