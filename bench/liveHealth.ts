import { loadavg } from 'node:os';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { cpuSeconds, demoUpstreamEnv, spawnEmulator, spawnSubgraph } from './processes';
import { fmtProbes, scrapeSum, startHealthProbes, type HealthProbes } from './subgraphProbes';
import { readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench -- live-health` (issue 35, "done when" 1): one graphql-ws
 * subscriber to `topArticles(limit: 1)` per DASHBOARD_CACHE_TTL_SECONDS in
 * LIVE_HEALTH_TTLS (default 1, 10, 30, 60), each on its own emulator
 * (realistic profile: one query a minute) and subgraph (real-host defaults
 * but the TTL, NODE_ENV=production). Once the subscriber has its first
 * numbers, /health/live is probed every 250 ms for LIVE_HEALTH_SECONDS
 * (default 300) from a worker thread; the goal is p99 under 100 ms. The TTLs
 * run at the same time (4 × 5 minutes in 5 minutes): each replica is probed
 * with the others running beside it on the same cores, which is harder than
 * alone. Reported besides: the subgraph's CPU, the subscriber's emissions,
 * the feed's reads and the answer cache's hits (a spin shows as thousands),
 * vendor queries.
 */

const SEED = 42;
const TOP_ONE = `subscription { topArticles(limit: 1) { rank value fetchedAt } }`;
const FIRST_NUMBERS_MS = 120_000;
/** The answer cache's hits on the dashboard endpoint: a feed spinning on cached answers showed as tens of thousands a minute. */
const DASHBOARD_HITS = ['subgraph_upstream_cache_events_total', 'endpoint="/api/dashboard/query"', 'result="hit"'] as const;

interface TtlRun {
  ttl: number;
  probes: HealthProbes;
  cpuPercent: number;
  emissions: number;
  feedReads: number;
  cacheHits: number;
  vendorQueries: number;
  seconds: number;
}

async function runTtl(ttl: number, seconds: number): Promise<TtlRun> {
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const subgraph = await spawnSubgraph({
    ...demoUpstreamEnv(emulator.url),
    NODE_ENV: 'production',
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
    DASHBOARD_CACHE_TTL_SECONDS: String(ttl),
  });
  const client = createClient({ url: subgraph.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 });
  try {
    let emissions = 0;
    const firstNumbers = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`TTL ${ttl}: no numbers in ${FIRST_NUMBERS_MS} ms`)), FIRST_NUMBERS_MS);
      client.subscribe(
        { query: TOP_ONE },
        {
          next: (result) => {
            if (result.data == null) return;
            emissions += 1;
            clearTimeout(timer);
            resolve();
          },
          error: (error) => reject(error instanceof Error ? error : new Error(String(error))),
          complete: () => undefined,
        },
      );
    });
    await firstNumbers;
    emissions = 0;
    await resetStats(emulator.url);
    const readsBefore = await scrapeSum(subgraph, 'subgraph_subscription_feed_reads_total');
    const hitsBefore = await scrapeSum(subgraph, ...DASHBOARD_HITS);
    const cpuBefore = cpuSeconds(subgraph.pid);
    const started = performance.now();
    const probes = startHealthProbes(subgraph);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const summary = await probes.stop();
    const wallSeconds = (performance.now() - started) / 1000;
    return {
      ttl,
      probes: summary,
      cpuPercent: (100 * (cpuSeconds(subgraph.pid) - cpuBefore)) / wallSeconds,
      emissions,
      feedReads: (await scrapeSum(subgraph, 'subgraph_subscription_feed_reads_total')) - readsBefore,
      cacheHits: (await scrapeSum(subgraph, ...DASHBOARD_HITS)) - hitsBefore,
      vendorQueries: (await readStats(emulator.url)).dashboard.count,
      seconds: wallSeconds,
    };
  } finally {
    await client.dispose();
    await subgraph.stop();
    await emulator.stop();
  }
}

async function main(): Promise<void> {
  const ttls = (process.env.LIVE_HEALTH_TTLS ?? '1,10,30,60').split(',').map(Number);
  const seconds = Number(process.env.LIVE_HEALTH_SECONDS ?? 300);
  const loadBefore = loadavg()[0];
  const runs = await Promise.all(ttls.map((ttl) => runTtl(ttl, seconds)));
  const loadAfter = loadavg()[0];
  const lines = [
    '',
    `### One subscriber, /health/live (issue 35): ${ttls.length} TTLs at once, ${seconds} s each; load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
    '',
    '| DASHBOARD_CACHE_TTL_SECONDS | /health/live p50 / p99 / max | subgraph CPU | emissions | feed reads | answer-cache hits | vendor queries |',
    '|---|---|---|---|---|---|---|',
    ...runs.map(
      (run) =>
        `| ${run.ttl} | ${fmtProbes(run.probes)} | ${run.cpuPercent.toFixed(1)} % of a core | ${run.emissions} | ${run.feedReads} | ${run.cacheHits} | ${run.vendorQueries} in ${run.seconds.toFixed(0)} s |`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
