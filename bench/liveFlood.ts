import { loadavg } from 'node:os';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { cpuSeconds, demoUpstreamEnv, memoryMiB, spawnEmulator, spawnSubgraph } from './processes';
import { fmtProbes, scrapeSum, startHealthProbes } from './subgraphProbes';
import { readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench -- live-flood` (issue 35, "done when" 2): SOCKETS graphql-ws
 * sockets each subscribe and complete PAIRS_PER_SOCKET times as fast as they
 * can, every time on a different `section` (so a different table): 10,000
 * pairs within seconds, against the realistic profile (one query a minute,
 * a burst of a few) and the subgraph on its real-host defaults. Then nothing
 * for LIVE_FLOOD_OBSERVE_SECONDS (default 150, two slots and more). Goals:
 * no vendor query for a table with no subscriber left (every query after the
 * last complete is one), /health/live p99 under 100 ms (probed every 250 ms
 * from a worker thread, during the flood and the 30 s after it), RSS back
 * within 50 MB of its start 30 s after the flood.
 */

const SEED = 42;
const SOCKETS = 200;
const PAIRS_PER_SOCKET = 50;
const AFTER_FLOOD_MS = 30_000;

/**
 * LIVE_FLOOD_VARIANT: what each pair subscribes to. `sections` (default): a
 * distinct section written in the document (a distinct table and a distinct
 * document, so each is parsed and validated); `section-variables`: the same
 * distinct sections as a variable of one document; `limits`: one table, only
 * `limit` varying in the document (the issue's control: none of the harm).
 */
const VARIANTS = {
  sections: (socket: number, pair: number) => ({
    query: `subscription { topArticles(section: ${JSON.stringify(`flood-${socket}-${pair}`)}, limit: 1) { rank value fetchedAt } }`,
  }),
  'section-variables': (socket: number, pair: number) => ({
    query: `subscription ($section: String) { topArticles(section: $section, limit: 1) { rank value fetchedAt } }`,
    variables: { section: `flood-${socket}-${pair}` },
  }),
  limits: (socket: number, pair: number) => ({
    query: `subscription { topArticles(limit: ${1 + ((socket * PAIRS_PER_SOCKET + pair) % 50)}) { rank value fetchedAt } }`,
  }),
};

async function connect(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client: Client = createClient({
      url,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      on: { connected: () => resolve(client) },
      onNonLazyError: reject,
    });
  });
}

async function main(): Promise<void> {
  const observeSeconds = Number(process.env.LIVE_FLOOD_OBSERVE_SECONDS ?? 150);
  const variant = (process.env.LIVE_FLOOD_VARIANT ?? 'sections') as keyof typeof VARIANTS;
  const operation = VARIANTS[variant];
  if (operation === undefined) throw new Error(`LIVE_FLOOD_VARIANT: one of ${Object.keys(VARIANTS).join(', ')}`);
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const subgraph = await spawnSubgraph({
    ...demoUpstreamEnv(emulator.url),
    NODE_ENV: 'production',
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
  });
  const clients: Client[] = [];
  try {
    const loadBefore = loadavg()[0];
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const rssStart = memoryMiB(subgraph.pid).rss;
    const wsUrl = subgraph.url.replace(/^http/, 'ws');
    clients.push(...(await Promise.all(Array.from({ length: SOCKETS }, () => connect(wsUrl)))));
    await resetStats(emulator.url);
    // Every vendor query with the time it was first seen (stats polled every 100 ms).
    const queriesAt: number[] = [];
    let seen = 0;
    const polling = setInterval(() => {
      void readStats(emulator.url).then((stats) => {
        for (; seen < stats.dashboard.count; seen += 1) queriesAt.push(performance.now());
      });
    }, 100);
    const rssSamples: { at: number; rss: number }[] = [];
    const sampling = setInterval(() => rssSamples.push({ at: performance.now(), rss: memoryMiB(subgraph.pid).rss }), 1_000);
    const errors = new Map<string, number>();
    const sink = {
      next: (result: { errors?: readonly { extensions?: Record<string, unknown> }[] }) => {
        for (const error of result.errors ?? []) {
          const code = String(error.extensions?.code ?? 'UNKNOWN');
          errors.set(code, (errors.get(code) ?? 0) + 1);
        }
      },
      error: () => undefined,
      complete: () => undefined,
    };

    const during = startHealthProbes(subgraph);
    const cpuBefore = cpuSeconds(subgraph.pid);
    const floodStarted = performance.now();
    await Promise.all(
      clients.map(async (client, socket) => {
        for (let pair = 0; pair < PAIRS_PER_SOCKET; pair += 1) {
          const complete = client.subscribe(operation(socket, pair), sink);
          // The subscribe frame goes out first; the complete follows on the next turn of the loop.
          await new Promise((resolve) => setImmediate(resolve));
          complete();
        }
      }),
    );
    const floodEnded = performance.now();
    await new Promise((resolve) => setTimeout(resolve, AFTER_FLOOD_MS));
    const duringProbes = await during.stop();
    const floodCpu = cpuSeconds(subgraph.pid) - cpuBefore;
    const rssAfter30s = memoryMiB(subgraph.pid).rss;
    const after = startHealthProbes(subgraph);
    await new Promise((resolve) => setTimeout(resolve, observeSeconds * 1000 - AFTER_FLOOD_MS));
    const afterProbes = await after.stop();
    clearInterval(polling);
    clearInterval(sampling);
    const stats = await readStats(emulator.url);
    const rssEnd = memoryMiB(subgraph.pid).rss;
    const peak = Math.max(...rssSamples.map((sample) => sample.rss));
    const afterLast = queriesAt.filter((at) => at > floodEnded).length;
    const open = await scrapeSum(subgraph, 'subgraph_subscriptions_open');
    const loadAfter = loadavg()[0];
    const lines = [
      '',
      `### ${SOCKETS * PAIRS_PER_SOCKET} subscribe/complete pairs, LIVE_FLOOD_VARIANT=${variant} (issue 35); load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
      '',
      '| measure | value |',
      '|---|---|',
      `| pairs / sockets / flood took | ${SOCKETS * PAIRS_PER_SOCKET} / ${SOCKETS} / ${((floodEnded - floodStarted) / 1000).toFixed(1)} s |`,
      `| vendor queries: during the flood / after its last complete (goal 0) / total in ${((performance.now() - floodStarted) / 1000).toFixed(0)} s | ${queriesAt.length - afterLast} / ${afterLast} / ${stats.dashboard.count} |`,
      `| subgraph CPU over the flood and 30 s after | ${floodCpu.toFixed(1)} s (${((1000 * floodCpu) / (SOCKETS * PAIRS_PER_SOCKET)).toFixed(2)} ms a pair) |`,
      `| /health/live p50 / p99 / max, flood and 30 s after (goal p99 < 100 ms) | ${fmtProbes(duringProbes)} |`,
      `| /health/live p50 / p99 / max, the ${observeSeconds - AFTER_FLOOD_MS / 1000} s after | ${fmtProbes(afterProbes)} |`,
      `| subgraph RSS: start / peak sample / 30 s after the flood / end (goal: within 50 MB of the start 30 s after) | ${rssStart.toFixed(0)} / ${peak.toFixed(0)} / ${rssAfter30s.toFixed(0)} / ${rssEnd.toFixed(0)} MiB |`,
      `| subscriptions open at the end | ${open} |`,
      `| errors the subscribers got | ${errors.size === 0 ? 'none' : [...errors].map(([code, count]) => `${code} × ${count}`).join(', ')} |`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    await subgraph.stop();
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
