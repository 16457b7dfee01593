import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { ChildMessage, ParentMessage, ScreenPlan, ScreenReport } from './liveScaleClients';
import { mostReadArticles } from './mostRead';
import { cpuSeconds, demoUpstreamEnv, freePort, memoryMiB, spawnEmulator, spawnSubgraph, type SubgraphProcess } from './processes';
import { summarize } from './stats';
import { fmtProbes, startHealthProbes } from './subgraphProbes';
import { readStats, resetStats } from './upstreamClient';
import { startRedisServer, type RedisServer } from '../test/support/redisServer';

/*
 * `LIVE_BENCH_SUBSCRIBERS=10000 LIVE_BENCH_FEEDS=100 npm run bench -- live`
 * (issue 38, item 2): SUBSCRIBERS graphql-ws subscribers, each on its own
 * WebSocket, spread over FEEDS distinct subscriptions on two tables (half
 * `topArticles(limit: k)` on the 1-day table, half `articleAnalytics(urls:
 * [one of the most read])` on the 7-day table), their clients in
 * LIVE_BENCH_CLIENT_PROCESSES (default 4) processes of their own
 * (bench/liveScaleClients.ts). The realistic profile at
 * LIVE_BENCH_RATE_PER_MINUTE dashboard queries a minute (default 6, for the
 * emulator and the subgraph) and DASHBOARD_CACHE_TTL_SECONDS at
 * LIVE_BENCH_TTL_SECONDS (default 30): each table refreshed more than once a minute,
 * page views ingested every 10 s for every article on a screen, so a refresh
 * moves the numbers. Phases: RSS before subscribing; every subscriber
 * subscribes and waits for its first numbers (LIVE_BENCH_WARM_SECONDS at
 * most); SETTLE_MS later, the RSS again (its growth ÷ subscribers); then
 * LIVE_BENCH_SECONDS measured. /health/live is probed every 250 ms throughout
 * (from a worker thread), the event-loop lag is the subgraph's own histogram
 * (`subgraph_nodejs_eventloop_lag_*`, read and reset at each phase's end: no
 * other scrape in between). LIVE_BENCH_NODE_ARGS: extra node flags for the
 * subgraph (e.g. `--heapsnapshot-signal=SIGUSR2`, with LIVE_BENCH_HEAP_SNAPSHOTS:
 * see `heapSnapshot`). LIVE_BENCH_BUILD: another build's `dist/src/index.js`
 * to measure (a base, run interleaved with this one). LIVE_BENCH_REPLICAS
 * (default 1): that many replicas sharing one Redis (a real redis-server),
 * the subscribers spread over them in turn; every subscriber is then expected
 * to get every refresh its feed got on any replica, so a table fetched once
 * for the cluster is what "every refresh" measures. Memory, CPU and event-loop
 * lag are the replicas' summed (memory, CPU) or worst (lag); /health/live is
 * probed on the first. LIVE_BENCH_PROBE_METRICS_PORT=1: each replica also
 * listens on METRICS_PORT, and /health/live is probed there instead of on
 * PORT (the probes' own port, docs/operations.md).
 */

const SEED = 42;
const CLIENTS = join(__dirname, 'liveScaleClients.ts');
const NEW_CONNECTION_PROBES = join(__dirname, 'diagnostics', 'newConnectionProbes.cjs');
/** After the last first numbers: sockets, feeds and the collector at rest before the RSS counts them. */
const SETTLE_MS = 20_000;
/** After the measured window, before the clients report: a refresh first seen in the window reaches every screen. */
const DRAIN_MS = 5_000;
const INGEST_EVERY_MS = 10_000;
const MAX_RANKING_LIMIT = 50;

interface Feed {
  table: 'ranking (1 day)' | 'article panel (7 days)';
  query: string;
  variables: Record<string, unknown>;
}

function feedsOf(count: number, urls: readonly string[]): Feed[] {
  const rankings = Math.ceil(count / 2);
  if (rankings > MAX_RANKING_LIMIT) throw new Error(`LIVE_BENCH_FEEDS: at most ${2 * MAX_RANKING_LIMIT}`);
  return Array.from({ length: count }, (_, index): Feed => {
    if (index < rankings) {
      return {
        table: 'ranking (1 day)',
        query: `subscription ($limit: Int) { topArticles(limit: $limit) { rank value article { url } fetchedAt } }`,
        variables: { limit: index + 1 },
      };
    }
    return {
      table: 'article panel (7 days)',
      query: `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews uniqueUsers fetchedAt } }`,
      variables: { urls: [urls[index - rankings]] },
    };
  });
}

interface ClientProcess {
  child: ChildProcess;
  ask(message: ParentMessage, reply: ChildMessage['kind']): Promise<ChildMessage>;
}

function spawnClients(): ClientProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENTS], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    child,
    ask: (message, reply) =>
      new Promise((resolve) => {
        const onMessage = (answer: ChildMessage) => {
          if (answer.kind !== reply) return;
          child.off('message', onMessage);
          resolve(answer);
        };
        child.on('message', onMessage);
        child.send(message);
      }),
  };
}

async function reportsOf(clients: ClientProcess[]): Promise<ScreenReport[]> {
  const answers = await Promise.all(clients.map((client) => client.ask({ kind: 'report' }, 'report')));
  return answers.flatMap((answer) => (answer.kind === 'report' ? answer.screens : []));
}

/**
 * The replicas' /metrics, each read once (a read resets prom-client's event-loop histogram): a series summed over
 * them, or (the lag's quantiles) the worst replica's.
 */
async function metricsOf(replicas: SubgraphProcess[]): Promise<(name: string) => number> {
  const texts = await Promise.all(replicas.map(async (replica) => (await fetch(replica.url.replace(/\/graphql$/, '/metrics'))).text()));
  const valueIn = (text: string, name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  return (name) =>
    name.startsWith('subgraph_nodejs_eventloop_lag_')
      ? Math.max(...texts.map((text) => valueIn(text, name)))
      : texts.reduce((sum, text) => sum + valueIn(text, name), 0);
}

function lagOf(metric: (name: string) => number): string {
  const ms = (name: string) => (1000 * metric(`subgraph_nodejs_eventloop_lag_${name}_seconds`)).toFixed(1);
  return `${ms('p50')} / ${ms('p99')} / ${ms('max')} ms`;
}

async function ingestPageViews(emulatorUrl: string, urls: readonly string[], round: number): Promise<void> {
  const rows = urls.map((url, index) => ({ url, clientId: `scale-reader-${round}-${index}`, durationSeconds: 30, scroll: 50 }));
  await fetch(`${emulatorUrl}/ingest/pageviews`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rows),
  });
}

const heapMiB = (metric: (name: string) => number) => metric('subgraph_nodejs_heap_size_used_bytes') / 1024 ** 2;

/**
 * LIVE_BENCH_HEAP_SNAPSHOTS set (with LIVE_BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2): a heap snapshot of the
 * subgraph before subscribing and once settled, in the bench's working directory, to count what each subscriber keeps.
 * It stops the subgraph's loop for seconds: a diagnostic run, not a measured one.
 */
async function heapSnapshot(subgraph: SubgraphProcess): Promise<void> {
  if (process.env.LIVE_BENCH_HEAP_SNAPSHOTS === undefined) return;
  process.kill(subgraph.pid, 'SIGUSR2');
  await sleep(Number(process.env.LIVE_BENCH_HEAP_SNAPSHOTS) * 1000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function liveScale(): Promise<void> {
  const subscribers = Number(process.env.LIVE_BENCH_SUBSCRIBERS ?? 10_000);
  const feedCount = Number(process.env.LIVE_BENCH_FEEDS ?? 100);
  const processes = Number(process.env.LIVE_BENCH_CLIENT_PROCESSES ?? 4);
  const rate = Number(process.env.LIVE_BENCH_RATE_PER_MINUTE ?? 6);
  const ttlSeconds = Number(process.env.LIVE_BENCH_TTL_SECONDS ?? 30);
  const seconds = Number(process.env.LIVE_BENCH_SECONDS ?? 300);
  const warmSeconds = Number(process.env.LIVE_BENCH_WARM_SECONDS ?? 300);
  const nodeArgs = (process.env.LIVE_BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const urls = mostReadArticles(SEED).slice(0, feedCount);
  const feeds = feedsOf(feedCount, urls);
  const loadBefore = loadavg();
  const emulator = await spawnEmulator({
    EMULATOR_PROFILE: 'realistic',
    EMULATOR_SEED: String(SEED),
    EMULATOR_REPORTING_RATE_PER_MINUTE: String(rate),
  });
  const replicaCount = Number(process.env.LIVE_BENCH_REPLICAS ?? 1);
  const redis: RedisServer | undefined = replicaCount > 1 ? await startRedisServer() : undefined;
  // One prefix for every replica: they share one set of keys (tables, budget, board), as one deployment's replicas do.
  const keyPrefix = `live-scale-${Date.now()}:`;
  // LIVE_BENCH_PROBE_METRICS_PORT=1: each replica also listens on METRICS_PORT, and the probes go there (docs/operations.md).
  const probeMetricsPort = process.env.LIVE_BENCH_PROBE_METRICS_PORT === '1';
  const metricsPorts: number[] = [];
  for (let index = 0; probeMetricsPort && index < replicaCount; index += 1) metricsPorts.push(await freePort());
  const spawnReplica = (index: number) =>
    spawnSubgraph(
      {
        ...demoUpstreamEnv(emulator.url),
        ...(probeMetricsPort ? { METRICS_PORT: String(metricsPorts[index]) } : {}),
        ...(redis === undefined ? {} : { REDIS_URL: redis.url, REDIS_KEY_PREFIX: keyPrefix }),
        NODE_ENV: 'production',
        CALLER_AUTH: 'none',
        LOG_LEVEL: 'error',
        REPORTING_RATE_PER_MINUTE: String(rate),
        DASHBOARD_CACHE_TTL_SECONDS: String(ttlSeconds),
        // The defaults (10,000 each) carry the goal's 10,000; a larger run raises them.
        ...(subscribers > 10_000 ? { MAX_SOCKETS: String(subscribers + 100), MAX_SUBSCRIPTIONS: String(subscribers + 100) } : {}),
      },
      nodeArgs,
      ...(process.env.LIVE_BENCH_BUILD === undefined ? [] : [process.env.LIVE_BENCH_BUILD]),
    );
  const replicas: SubgraphProcess[] = [];
  for (let index = 0; index < replicaCount; index += 1) replicas.push(await spawnReplica(index));
  const [subgraph] = replicas;
  const rssOf = () => replicas.reduce((sum, replica) => sum + memoryMiB(replica.pid).rss, 0);
  const cpuOf = () => replicas.reduce((sum, replica) => sum + cpuSeconds(replica.pid), 0);
  const clients = Array.from({ length: processes }, spawnClients);
  let ingestRound = 0;
  const ingesting = setInterval(() => void ingestPageViews(emulator.url, urls, (ingestRound += 1)).catch(() => undefined), INGEST_EVERY_MS);
  try {
    await sleep(5_000);
    const rssBefore = rssOf();
    const beforeMetrics = await metricsOf(replicas);
    await heapSnapshot(subgraph);
    const probed = probeMetricsPort ? { ...subgraph, url: `http://127.0.0.1:${metricsPorts[0]}/graphql` } : subgraph;
    const subscribing = startHealthProbes(probed);
    // LIVE_BENCH_NEW_CONNECTION_PROBES=<seconds>: /health/live also probed a new connection each, as a kubelet does (a diagnostic).
    const newConnectionProbes = process.env.LIVE_BENCH_NEW_CONNECTION_PROBES;
    if (newConnectionProbes !== undefined)
      // With the probes on METRICS_PORT, PORT is probed too: the two side by side, at the same moments.
      for (const target of new Set([probed.url, subgraph.url]))
        spawn(process.execPath, [NEW_CONNECTION_PROBES, target, newConnectionProbes], { stdio: 'inherit' });
    const subscribeStarted = performance.now();
    const plans: ScreenPlan[][] = clients.map(() => []);
    for (let index = 0; index < subscribers; index += 1) {
      const feed = index % feeds.length;
      const url = replicas[index % replicas.length].url.replace(/^http/, 'ws');
      plans[index % processes].push({ feed, url, query: feeds[feed].query, variables: feeds[feed].variables });
    }
    const started = await Promise.all(clients.map((client, index) => client.ask({ kind: 'start', screens: plans[index] }, 'subscribed')));
    const failed = started.reduce((sum, answer) => sum + (answer.kind === 'subscribed' ? answer.failed : 0), 0);
    const subscribedSeconds = (performance.now() - subscribeStarted) / 1000;
    const warmEnd = subscribeStarted + warmSeconds * 1000;
    let withNumbers = 0;
    while (performance.now() < warmEnd) {
      withNumbers = (await reportsOf(clients)).filter((screen) => screen.emissions.length > 0).length;
      if (withNumbers >= subscribers - failed) break;
      await sleep(5_000);
    }
    const warmedSeconds = (performance.now() - subscribeStarted) / 1000;
    await sleep(SETTLE_MS);
    const rssSettled = rssOf();
    const subscribeProbes = await subscribing.stop();
    const subscribeMetrics = await metricsOf(replicas);
    await heapSnapshot(subgraph);

    await resetStats(emulator.url);
    const measuring = startHealthProbes(probed);
    const cpuBefore = cpuOf();
    const windowStart = Date.now();
    const measureStarted = performance.now();
    const rssSamples: number[] = [];
    while (performance.now() < measureStarted + seconds * 1000) {
      await sleep(Math.min(5_000, measureStarted + seconds * 1000 - performance.now()));
      rssSamples.push(rssOf());
    }
    const windowEnd = Date.now();
    const wallSeconds = (performance.now() - measureStarted) / 1000;
    const cpu = cpuOf() - cpuBefore;
    const windowMetrics = await metricsOf(replicas);
    const windowProbes = await measuring.stop();
    const rssEnd = rssOf();
    const rssMedian = summarize(rssSamples).p50;
    const vendor = await readStats(emulator.url);
    await sleep(DRAIN_MS);
    const screens = await reportsOf(clients);
    // LIVE_BENCH_DUMP: a file for each table's answers as each replica's subscribers got them (fetchedAt → subscribers).
    if (process.env.LIVE_BENCH_DUMP !== undefined)
      writeFileSync(process.env.LIVE_BENCH_DUMP, JSON.stringify(answersByReplica(screens, feeds)));
    const deliveries = deliveriesOf(screens, feeds, windowStart, windowEnd);
    const errors = new Map<string, number>();
    for (const code of screens.flatMap((screen) => screen.errors)) errors.set(code, (errors.get(code) ?? 0) + 1);
    const loadAfter = loadavg();
    const kb = (mib: number) => ((mib * 1024) / subscribers).toFixed(1);
    const lines = [
      '',
      `### Live at scale (issue 38): ${subscribers} subscribers on ${feedCount} feeds, ${replicaCount === 1 ? 'one replica' : `${replicaCount} replicas on Redis`}, 2 tables, ${rate} vendor queries a minute, TTL ${ttlSeconds} s, clients in ${processes} processes, ${wallSeconds.toFixed(0)} s measured`,
      '',
      `Load average (1 / 5 min) ${loadBefore[0].toFixed(2)} / ${loadBefore[1].toFixed(2)} before, ${loadAfter[0].toFixed(2)} / ${loadAfter[1].toFixed(2)} after.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| subscribed (sockets refused or failed) / with first numbers / time | ${subscribers - failed} (${failed}) / ${withNumbers} in ${warmedSeconds.toFixed(0)} s (all connected in ${subscribedSeconds.toFixed(0)} s) |`,
      `| refreshes in the window (distinct table answers delivered) | ${deliveries.refreshes} (${deliveries.perTable}) |`,
      `| every subscriber every refresh: emissions expected / received / subscribers with a miss (misses) | ${deliveries.expected} / ${deliveries.received} / ${deliveries.subscribersMissing} (${deliveries.missed}) |`,
      `| spread first → last delivery of a refresh, over every subscriber of its table: p50 / max (goal ≤ 1 s) | ${deliveries.spread.p50.toFixed(0)} / ${deliveries.spread.max.toFixed(0)} ms |`,
      `| delivery after the table's answer: p50 / p99 / max | ${deliveries.latency.p50.toFixed(0)} / ${deliveries.latency.p99.toFixed(0)} / ${deliveries.latency.max.toFixed(0)} ms |`,
      `| event-loop lag p50 / p99 / max, subscribing (goal p99 ≤ 50 ms over the window) | ${lagOf(subscribeMetrics)} |`,
      `| event-loop lag p50 / p99 / max, measured window | ${lagOf(windowMetrics)} |`,
      `| /health/live p50 / p99 / max, subscribing + settling | ${fmtProbes(subscribeProbes)} |`,
      `| /health/live p50 / p99 / max, measured window (goal p99 ≤ 100 ms) | ${fmtProbes(windowProbes)} |`,
      `| RSS (replicas summed) before subscribing / settled / median, peak in window / end | ${rssBefore.toFixed(0)} / ${rssSettled.toFixed(0)} / ${rssMedian.toFixed(0)}, ${Math.max(...rssSamples).toFixed(0)} / ${rssEnd.toFixed(0)} MiB |`,
      `| RSS growth ÷ subscribers, settled / window median (goal ≤ 30 KB) | ${kb(rssSettled - rssBefore)} / ${kb(rssMedian - rssBefore)} KB |`,
      `| V8 heap used before subscribing / settled (growth ÷ subscribers) | ${heapMiB(beforeMetrics).toFixed(0)} / ${heapMiB(subscribeMetrics).toFixed(0)} MiB (${kb(heapMiB(subscribeMetrics) - heapMiB(beforeMetrics))} KB) |`,
      `| subgraph CPU in the window (replicas summed) | ${cpu.toFixed(1)} s (${((100 * cpu) / wallSeconds).toFixed(1)} % of one core) |`,
      `| subscriptions open (subgraph) / events sent since start / dropped | ${windowMetrics('subgraph_subscriptions_open')} / ${windowMetrics('subgraph_subscription_events_total')} / ${windowMetrics('subgraph_subscribers_dropped_total')} |`,
      `| vendor dashboard queries in the window | ${vendor.dashboard.count} (${((vendor.dashboard.count * 60) / wallSeconds).toFixed(2)} a minute) |`,
      `| errors in emissions | ${errors.size === 0 ? 'none' : [...errors].map(([code, count]) => `${code} × ${count}`).join(', ')} |`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    clearInterval(ingesting);
    await Promise.all(
      clients.map(async ({ child }) => {
        const exited = once(child, 'exit');
        child.send({ kind: 'stop' } satisfies ParentMessage);
        await exited;
      }),
    );
    await Promise.all(replicas.map((replica) => replica.stop()));
    await emulator.stop();
    await redis?.close();
  }
}

/**
 * A refresh is a table's answer (its `fetchedAt`) first delivered inside the
 * window. Each subscriber is expected to get every refresh its feed delivered
 * to any of its subscribers; the spread is from the first delivery of a
 * refresh to the last, over every subscriber of its table.
 */
function deliveriesOf(screens: ScreenReport[], feeds: Feed[], windowStart: number, windowEnd: number) {
  const firstSeen = new Map<string, number>();
  const lastSeen = new Map<string, number>();
  const byFeed = new Map<number, Set<number>>();
  const latencies: number[] = [];
  for (const screen of screens) {
    const table = feeds[screen.feed].table;
    for (const [fetchedAt, arrived] of screen.emissions) {
      const key = `${table} ${fetchedAt}`;
      firstSeen.set(key, Math.min(firstSeen.get(key) ?? Infinity, arrived));
      lastSeen.set(key, Math.max(lastSeen.get(key) ?? -Infinity, arrived));
    }
  }
  const inWindow = (table: string, fetchedAt: number) => {
    const first = firstSeen.get(`${table} ${fetchedAt}`) ?? -Infinity;
    return first >= windowStart && first <= windowEnd;
  };
  for (const screen of screens) {
    const table = feeds[screen.feed].table;
    const own = byFeed.get(screen.feed) ?? new Set<number>();
    for (const [fetchedAt, arrived] of screen.emissions) {
      if (!inWindow(table, fetchedAt)) continue;
      own.add(fetchedAt);
      latencies.push(arrived - fetchedAt);
    }
    byFeed.set(screen.feed, own);
  }
  let expected = 0;
  let received = 0;
  let missed = 0;
  let subscribersMissing = 0;
  for (const screen of screens) {
    const wanted = byFeed.get(screen.feed) ?? new Set<number>();
    const got = new Set(screen.emissions.map(([fetchedAt]) => fetchedAt).filter((fetchedAt) => wanted.has(fetchedAt)));
    expected += wanted.size;
    received += got.size;
    missed += wanted.size - got.size;
    if (got.size < wanted.size) subscribersMissing += 1;
  }
  const refreshKeys = [...firstSeen.keys()].filter((key) => {
    const first = firstSeen.get(key) ?? -Infinity;
    return first >= windowStart && first <= windowEnd;
  });
  const perTable = new Map<string, number>();
  for (const key of refreshKeys) {
    const table = key.slice(0, key.lastIndexOf(' '));
    perTable.set(table, (perTable.get(table) ?? 0) + 1);
  }
  return {
    refreshes: refreshKeys.length,
    perTable: [...perTable].map(([table, count]) => `${table}: ${count}`).join(', '),
    expected,
    received,
    missed,
    subscribersMissing,
    spread: summarize(refreshKeys.map((key) => (lastSeen.get(key) ?? 0) - (firstSeen.get(key) ?? 0))),
    latency: summarize(latencies),
  };
}

/** Each table's answers (fetchedAt) and how many subscribers of each replica got each: a diagnostic dump. */
function answersByReplica(screens: ScreenReport[], feeds: Feed[]): Record<string, Record<string, Record<string, number>>> {
  const dump: Record<string, Record<string, Record<string, number>>> = {};
  for (const screen of screens) {
    const table = (dump[feeds[screen.feed].table] ??= {});
    for (const [fetchedAt] of screen.emissions) {
      const replicas = (table[new Date(fetchedAt).toISOString()] ??= {});
      replicas[screen.url] = (replicas[screen.url] ?? 0) + 1;
    }
  }
  return dump;
}
