import { readFileSync } from 'node:fs';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { mostReadArticles } from './mostRead';
import { memoryMiB, spawnEmulator, spawnSubgraph, type SubgraphProcess } from './processes';
import { fmt } from './stats';
import { DEMO_EMAIL, DEMO_PASSWORD, readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench -- live` (issue 30): live numbers on the realistic profile
 * (1 dashboard query a minute with Retry-After, 500 rows) and the subgraph on
 * its real-host defaults (no rate variable set). SUBSCRIBERS screens, each on
 * its own WebSocket: RANKING_SUBSCRIBERS on 5 rankings (`topArticles` with 5
 * argument sets, 4 tables), and one `articleAnalytics` subscriber per article on
 * the ARTICLES most read (the 7-day table, which one ranking shares).
 * First every subscription waits for its first numbers (at most
 * LIVE_BENCH_WARM_SECONDS, default 300: the tables are fetched one a minute),
 * then LIVE_BENCH_SECONDS (default 300) are measured. Recorded: each refresh's delivery
 * latency (arrival minus the emission's `fetchedAt`, which is when the table's
 * answer arrived, just before it was written), refreshes a subscriber missed
 * that another subscriber of the same subscription got, vendor queries a
 * minute, 429s, and the subgraph's RSS and CPU.
 */

const SEED = 42;
const ARTICLES = 200;
const RANKING_SUBSCRIBERS = 300;
const RANKINGS = [
  `subscription { topArticles(limit: 10) { rank value article { url } fetchedAt } }`,
  `subscription { topArticles(window: { last: { number: 7, unit: DAY } }, limit: 10) { rank value article { url } fetchedAt } }`,
  `subscription { topArticles(metric: UNIQUE_USERS, limit: 10) { rank value article { url } fetchedAt } }`,
  `subscription { topArticles(domain: "dailyglobe.example", limit: 10) { rank value article { url } fetchedAt } }`,
  `subscription { topArticles(limit: 5) { rank value article { url } fetchedAt } }`,
];
const PANEL = `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews uniqueUsers fetchedAt } }`;
/** Linux's clock ticks per second for /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

interface Screen {
  /** Which subscription (same arguments) it shares with others. */
  group: string;
  client: Client;
  /** The `fetchedAt` of each emission with numbers, in arrival order. */
  fetchedAts: number[];
  /** Arrival minus `fetchedAt` of each emission after the first (a refresh) in the measured window, ms. */
  latencies: number[];
  errors: string[];
}

/** Latencies count from the end of the warm-up on. */
const measured = { measuring: false };

function subscribeScreen(url: string, group: string, query: string, variables: Record<string, unknown>): Screen {
  const client = createClient({ url, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0, onNonLazyError: () => undefined });
  const screen: Screen = { group, client, fetchedAts: [], latencies: [], errors: [] };
  client.subscribe<Record<string, { fetchedAt: string }[] | null>>(
    { query, variables },
    {
      next: (result) => {
        const arrived = Date.now();
        for (const error of result.errors ?? []) screen.errors.push(String(error.extensions?.code ?? 'UNKNOWN'));
        const items = Object.values(result.data ?? {})[0] ?? [];
        const fetchedAt = items.reduce((oldest, item) => Math.min(oldest, Date.parse(item?.fetchedAt ?? '')), Number.POSITIVE_INFINITY);
        if (!Number.isFinite(fetchedAt)) return;
        if (screen.fetchedAts.length > 0 && measured.measuring) screen.latencies.push(arrived - fetchedAt);
        screen.fetchedAts.push(fetchedAt);
      },
      error: (error) => screen.errors.push(`closed: ${String(error)}`),
      complete: () => undefined,
    },
  );
  return screen;
}

/** Refreshes another screen of the same subscription received (after this one's first numbers) that this one did not. */
function missedRefreshes(screens: Screen[]): number {
  const byGroup = new Map<string, Screen[]>();
  for (const screen of screens) byGroup.set(screen.group, [...(byGroup.get(screen.group) ?? []), screen]);
  let missed = 0;
  for (const group of byGroup.values()) {
    const all = new Set(group.flatMap((screen) => screen.fetchedAts));
    for (const screen of group) {
      const first = screen.fetchedAts[0];
      if (first === undefined) continue;
      const seen = new Set(screen.fetchedAts);
      for (const fetchedAt of all) if (fetchedAt > first && !seen.has(fetchedAt)) missed += 1;
    }
  }
  return missed;
}

/** User plus system CPU seconds of a process so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After the command name: state is field 3, utime field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function scrapeSum(subgraph: SubgraphProcess, prefix: string): Promise<number> {
  const text = await (await fetch(subgraph.url.replace(/\/graphql$/, '/metrics'))).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const seconds = Number(process.env.LIVE_BENCH_SECONDS ?? 300);
  const warmSeconds = Number(process.env.LIVE_BENCH_WARM_SECONDS ?? 300);
  const urls = mostReadArticles(SEED).slice(0, ARTICLES);
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const subgraph = await spawnSubgraph({
    REPORTING_BASE_URL: emulator.url,
    RECOMMENDER_URL: emulator.url,
    REPORTING_EMAIL: DEMO_EMAIL,
    REPORTING_PASSWORD: DEMO_PASSWORD,
    NODE_ENV: 'production',
    // The subscribers connect directly, as a router would (no proof asked: docs/security.md).
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
  });
  const wsUrl = subgraph.url.replace(/^http/, 'ws');
  const screens: Screen[] = [];
  try {
    for (let index = 0; index < RANKING_SUBSCRIBERS; index += 1) {
      const ranking = index % RANKINGS.length;
      screens.push(subscribeScreen(wsUrl, `ranking ${ranking}`, RANKINGS[ranking], {}));
    }
    for (const url of urls) screens.push(subscribeScreen(wsUrl, url, PANEL, { urls: [url] }));
    const warmStarted = performance.now();
    const warmEnd = warmStarted + warmSeconds * 1000;
    while (performance.now() < warmEnd && screens.some((screen) => screen.fetchedAts.length === 0)) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const warmedSeconds = (performance.now() - warmStarted) / 1000;
    const warmedScreens = screens.filter((screen) => screen.fetchedAts.length > 0).length;
    await resetStats(emulator.url);
    const rateLimitedBefore = await scrapeSum(subgraph, 'subgraph_upstream_rate_limited_total');
    const cpuBefore = cpuSeconds(subgraph.pid);
    const started = performance.now();
    measured.measuring = true;
    const rssSamples: number[] = [];
    const endAt = started + seconds * 1000;
    while (performance.now() < endAt) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, endAt - performance.now())));
      rssSamples.push(memoryMiB(subgraph.pid).rss);
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(subgraph.pid) - cpuBefore;
    const memory = memoryMiB(subgraph.pid);
    const stats = await readStats(emulator.url);
    const rateLimited = (await scrapeSum(subgraph, 'subgraph_upstream_rate_limited_total')) - rateLimitedBefore;
    const open = await scrapeSum(subgraph, 'subgraph_subscriptions_open');
    const events = await scrapeSum(subgraph, 'subgraph_subscription_events_total');
    const dropped = await scrapeSum(subgraph, 'subgraph_subscribers_dropped_total');
    const latencies = screens.flatMap((screen) => screen.latencies).sort((a, b) => a - b);
    const withNumbers = screens.filter((screen) => screen.fetchedAts.length > 0).length;
    const errors = new Map<string, number>();
    for (const code of screens.flatMap((screen) => screen.errors)) errors.set(code, (errors.get(code) ?? 0) + 1);
    const lines = [
      '',
      `### Live numbers (issue 30): ${screens.length} subscribers (${RANKING_SUBSCRIBERS} on ${RANKINGS.length} rankings, ${urls.length} on one article each), ${wallSeconds.toFixed(0)} s measured`,
      '',
      '| measure | value |',
      '|---|---|',
      `| warm-up: subscribers with their first numbers / time | ${warmedScreens} of ${screens.length} in ${warmedSeconds.toFixed(0)} s |`,
      `| subscriptions open at the end / with numbers | ${open} / ${withNumbers} of ${screens.length} |`,
      `| refresh emissions received in the measured window | ${latencies.length} |`,
      `| delivery latency after the table's answer: p50 / p95 / p99 / max | ${fmt(quantile(latencies, 0.5))} / ${fmt(quantile(latencies, 0.95))} / ${fmt(quantile(latencies, 0.99))} / ${fmt(latencies.at(-1) ?? Number.NaN)} |`,
      `| refreshes a subscriber missed that another of its subscription got | ${missedRefreshes(screens)} |`,
      `| events sent since the start (subgraph) / subscribers dropped | ${events} / ${dropped} |`,
      `| vendor dashboard queries in the measured window | ${stats.dashboard.count} (${((stats.dashboard.count * 60) / wallSeconds).toFixed(2)} a minute) |`,
      `| upstream 429s | ${rateLimited} |`,
      `| subgraph RSS: end / peak sample / peak (VmHWM) | ${memory.rss.toFixed(0)} MiB / ${Math.max(...rssSamples).toFixed(0)} MiB / ${memory.peak.toFixed(0)} MiB |`,
      `| subgraph CPU | ${cpu.toFixed(1)} s over ${wallSeconds.toFixed(0)} s (${((100 * cpu) / wallSeconds).toFixed(1)} % of one core) |`,
      `| errors in emissions | ${errors.size === 0 ? 'none' : [...errors].map(([code, count]) => `${code} × ${count}`).join(', ')} |`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await Promise.all(screens.map((screen) => screen.client.dispose()));
    await subgraph.stop();
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
