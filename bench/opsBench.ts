import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderUrl, type RenderParamsPool } from './emulatorBench';
import { runLoad } from './load';
import { demoUpstreamEnv, type EmulatorProcess, memoryMiB, spawnSubgraph, type SubgraphProcess } from './processes';

/*
 * Issue 10's figures: what metrics and tracing cost on the request path, and
 * whether the document cache keeps memory bounded under distinct query texts.
 */

export interface OverheadVariant {
  name: string;
  /** Throughput of each interleaved round, requests per second. */
  rounds: number[];
  median: number;
  p50Ms: number[];
}

export interface MemoryVariant {
  name: string;
  before: number;
  after: number;
  peak: number;
  errors: number;
}

export interface OpsFigures {
  concurrency: number;
  requestsPerRound: number;
  overhead: OverheadVariant[];
  memory: { texts: number; variants: MemoryVariant[] };
}

/** Many short rounds spread the noise of a shared machine evenly over the variants; both can be raised by env. */
const ROUNDS = Number(process.env.OPS_BENCH_ROUNDS ?? 12);
const REQUESTS_PER_ROUND = Number(process.env.OPS_BENCH_REQUESTS ?? 500);
const CONCURRENCY = 4;
const DISTINCT_TEXTS = 100_000;
const FIELDS = 'position url title img authors sections publishTime publishedAt';

export async function benchOps(emulator: EmulatorProcess, pool: RenderParamsPool, options: { memory: boolean }): Promise<OpsFigures> {
  const sink = await startTraceSink();
  try {
    const overhead = await measureOverhead(emulator, pool, sink.url);
    const memory = options.memory ? await measureDocumentMemory(emulator) : { texts: DISTINCT_TEXTS, variants: [] };
    return { concurrency: CONCURRENCY, requestsPerRound: REQUESTS_PER_ROUND, overhead, memory };
  } finally {
    await new Promise<void>((resolve) => sink.server.close(() => resolve()));
  }
}

function upstreamEnv(emulator: EmulatorProcess): Record<string, string> {
  return {
    NODE_ENV: 'production',
    // Open on purpose: a bench (or test) is the only caller.
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'warn',
    ...demoUpstreamEnv(emulator.url),
  };
}

/**
 * Three subgraph processes live at once (metrics off; metrics on; metrics
 * and tracing on, every request sampled, exporting OTLP to a local sink),
 * loaded in turn, round after round with the order rotated, so machine noise
 * falls on all three alike.
 */
async function measureOverhead(emulator: EmulatorProcess, pool: RenderParamsPool, sinkUrl: string): Promise<OverheadVariant[]> {
  const base = upstreamEnv(emulator);
  const specs: [string, Record<string, string>][] = [
    ['metrics off', { ...base, METRICS_ENABLED: 'false' }],
    ['metrics on, tracing off', base],
    [
      'metrics on, tracing on (all sampled)',
      { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
    ],
  ];
  const processes: SubgraphProcess[] = [];
  try {
    for (const [, env] of specs) processes.push(await spawnSubgraph(env));
    const variants: OverheadVariant[] = specs.map(([name]) => ({ name, rounds: [], median: 0, p50Ms: [] }));
    const similar = emulator.experiences.find((experience) => experience.rankingProfile === 'similar') ?? emulator.experiences[0];
    for (let round = 0; round < ROUNDS; round++) {
      for (let step = 0; step < specs.length; step++) {
        const index = (round + step) % specs.length;
        const result = await runLoad({
          concurrency: CONCURRENCY,
          requests: REQUESTS_PER_ROUND,
          warmup: 200,
          build: (i) => {
            const params = new URL(renderUrl(emulator.url, similar, pool, i)).searchParams;
            return {
              method: 'POST',
              url: processes[index].url,
              body: {
                query: `query Bench($id: ID!, $url: String, $client: ID) { recommendations(experienceId: $id, canonicalUrl: $url, clientId: $client) { ${FIELDS} } }`,
                variables: { id: params.get('id'), url: params.get('canonical_url'), client: params.get('client_id') },
              },
            };
          },
        });
        if (result.errors > 0) throw new Error(`${variants[index].name}: ${result.errors} operations failed`);
        variants[index].rounds.push(result.throughputPerSecond);
        variants[index].p50Ms.push(result.p50);
      }
    }
    for (const variant of variants) variant.median = median(variant.rounds);
    return variants;
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
  }
}

/** 100,000 distinct operation texts (no upstream call), RSS before and after, with the bounded cache and a practically unbounded one. */
async function measureDocumentMemory(emulator: EmulatorProcess): Promise<OpsFigures['memory']> {
  const specs: [string, Record<string, string>][] = [
    ['DOCUMENT_CACHE_MAX_BYTES default (16 MiB)', {}],
    ['DOCUMENT_CACHE_MAX_BYTES=4 GiB (practically unbounded)', { DOCUMENT_CACHE_MAX_BYTES: String(4 * 1024 ** 3) }],
  ];
  const variants: MemoryVariant[] = [];
  for (const [name, env] of specs) {
    const subgraph = await spawnSubgraph({ ...upstreamEnv(emulator), ...env });
    try {
      const before = memoryMiB(subgraph.pid).rss;
      const result = await runLoad({
        concurrency: 8,
        requests: DISTINCT_TEXTS,
        warmup: 0,
        build: (i) => ({ method: 'POST', url: subgraph.url, body: { query: distinctText(i) } }),
      });
      const after = memoryMiB(subgraph.pid);
      variants.push({ name, before, after: after.rss, peak: after.peak, errors: result.errors });
    } finally {
      await subgraph.stop();
    }
  }
  return { texts: DISTINCT_TEXTS, variants };
}

/** About 200 characters, unique per i, valid, and answered without an upstream call. */
function distinctText(i: number): string {
  const aliases = Array.from({ length: 10 }, (_, alias) => `t${alias}_${i}: __typename`).join(' ');
  return `query Probe${i} { ${aliases} }`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Accepts OTLP exports and discards them: the cost measured is the subgraph's, not a collector's. */
async function startTraceSink(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-protobuf' });
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export function opsReport(figures: OpsFigures): string[] {
  const baseline = figures.overhead[0].median;
  const lines = [
    '',
    `### Metrics and tracing on the request path (recommendations, ${figures.concurrency} in flight, ${figures.overhead[0].rounds.length} interleaved rounds of ${figures.requestsPerRound})`,
    '',
    '| variant | throughput per round (req/s) | median | ratio to metrics off | median p50 |',
    '|---|---|---|---|---|',
    ...figures.overhead.map(
      (variant) =>
        `| ${variant.name} | ${variant.rounds.map((value) => value.toFixed(0)).join(', ')} | ${variant.median.toFixed(0)} | ${(variant.median / baseline).toFixed(3)} | ${(median(variant.p50Ms) * 1000).toFixed(0)} µs |`,
    ),
    '',
    'Ratio of each round to the metrics-off run of the same round (medians over rounds): ' +
      figures.overhead
        .slice(1)
        .map(
          (variant) =>
            `${variant.name} ${median(variant.rounds.map((value, round) => value / figures.overhead[0].rounds[round])).toFixed(3)}`,
        )
        .join('; '),
    '',
    `### Memory under ${figures.memory.texts.toLocaleString('en')} distinct query texts`,
    '',
    '| document cache | RSS before | RSS after | peak | failed operations |',
    '|---|---|---|---|---|',
    ...(figures.memory.variants.length === 0 ? ['| (not measured: `npm run bench:ops`) | | | | |'] : []),
    ...figures.memory.variants.map(
      (variant) =>
        `| ${variant.name} | ${variant.before.toFixed(0)} MiB | ${variant.after.toFixed(0)} MiB | ${variant.peak.toFixed(0)} MiB | ${variant.errors} |`,
    ),
  ];
  return lines;
}
