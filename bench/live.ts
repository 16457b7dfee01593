import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { mostReadArticles } from './mostRead';
import { cpuSeconds, demoUpstreamEnv, memoryMiB, spawnEmulator, spawnSubgraph, type SubgraphProcess } from './processes';
import { liveScale } from './liveScale';
import { fmt } from './stats';
import { scrapeSum } from './subgraphProbes';
import { readStats, resetStats } from './upstreamClient';

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
 *
 * With LIVE_BENCH_SUBSCRIBERS or LIVE_BENCH_FEEDS set, `npm run bench -- live`
 * runs the scale scenario instead (issue 38, item 2: bench/liveScale.ts).
 *
 * `npm run bench -- live-mixed` (issue 35, item 6): the mixed newsroom, rankings
 * on several windows and article panels on others (MIXED: 5 tables, one a
 * minute), while page views are ingested for every article on a screen so
 * each refresh moves its numbers. Reported besides: each table's worst age
 * (the subgraph's own `subgraph_analytics_table_age_seconds`, scraped every
 * 5 s) against the bound ⌈N / B⌉ + 1 minutes, its refreshes, and each
 * subscriber's misses (a refresh of its table another subscriber of its
 * subscription got and it did not).
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
/** The mixed scenario: rankings on three windows, article panels on two others (each subscription: a window, so a table). */
const MIXED_RANKINGS = [
  { table: 'last_1_day_pageViewsTotal', query: `subscription { topArticles(limit: 5) { rank value article { url } fetchedAt } }` },
  {
    table: 'last_6_hour_pageViewsTotal',
    query: `subscription { topArticles(window: { last: { number: 6, unit: HOUR } }, limit: 10) { rank value article { url } fetchedAt } }`,
  },
  {
    table: 'last_3_day_pageViewsTotal',
    query: `subscription { topArticles(window: { last: { number: 3, unit: DAY } }, limit: 10) { rank value article { url } fetchedAt } }`,
  },
];
const MIXED_PANEL_WINDOWS = [
  { table: 'last_7_day_pageViewsTotal', days: 7 },
  { table: 'last_14_day_pageViewsTotal', days: 14 },
];
const MIXED_PANEL = `subscription ($urls: [String!]!, $days: Int!) { articleAnalytics(urls: $urls, window: { last: { number: $days, unit: DAY } }) { pageViews uniqueUsers fetchedAt } }`;
const MIXED_RANKING_SUBSCRIBERS = 30;
const MIXED_PANELS_PER_WINDOW = 10;
const MIXED_ARTICLES_PER_PANEL = 5;
/** The real hosts' budget, as the subgraph runs on its defaults (REPORTING_RATE_PER_MINUTE unset). */
const SLOTS_PER_MINUTE = 1;

interface Screen {
  /** Which subscription (same arguments) it shares with others. */
  group: string;
  /** The table it reads (its label in the subgraph's metrics), in the mixed scenario. */
  table?: string;
  client: Client;
  /** The `fetchedAt` of each emission with numbers, in arrival order. */
  fetchedAts: number[];
  /** Arrival minus `fetchedAt` of each emission after the first (a refresh) in the measured window, ms. */
  latencies: number[];
  errors: string[];
}

/** Latencies count from the end of the warm-up on. */
const measured = { measuring: false };

function subscribeScreen(url: string, group: string, query: string, variables: Record<string, unknown>, table?: string): Screen {
  const client = createClient({ url, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0, onNonLazyError: () => undefined });
  const screen: Screen = { group, client, fetchedAts: [], latencies: [], errors: [], ...(table === undefined ? {} : { table }) };
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
  return [...missesByScreen(screens).values()].reduce((sum, missed) => sum + missed, 0);
}

/** Each screen's misses: refreshes another screen of its subscription received (after this one's first numbers) that it did not. */
function missesByScreen(screens: Screen[]): Map<Screen, number> {
  const byGroup = new Map<string, Screen[]>();
  for (const screen of screens) byGroup.set(screen.group, [...(byGroup.get(screen.group) ?? []), screen]);
  const misses = new Map<Screen, number>();
  for (const group of byGroup.values()) {
    const all = new Set(group.flatMap((screen) => screen.fetchedAts));
    for (const screen of group) {
      const first = screen.fetchedAts[0];
      if (first === undefined) continue;
      const seen = new Set(screen.fetchedAts);
      misses.set(screen, [...all].filter((fetchedAt) => fetchedAt > first && !seen.has(fetchedAt)).length);
    }
  }
  return misses;
}

/** Each table's age now, as the subgraph's own gauge says it (`subgraph_analytics_table_age_seconds`), by its label. */
async function tableAges(subgraph: SubgraphProcess): Promise<Map<string, number>> {
  const text = await (await fetch(subgraph.url.replace(/\/graphql$/, '/metrics'))).text();
  const ages = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^subgraph_analytics_table_age_seconds\{table="([^"]+)"\} (\S+)$/.exec(line);
    if (match !== null) ages.set(match[1], Number(match[2]));
  }
  return ages;
}

/** One page view for each url (the emulator's ingest, no auth), so every refresh of a table on a screen moves its numbers. */
async function ingestPageViews(emulatorUrl: string, urls: readonly string[], round: number): Promise<void> {
  const rows = urls.map((url, index) => ({ url, clientId: `bench-reader-${round}-${index}`, durationSeconds: 30, scroll: 50 }));
  await fetch(`${emulatorUrl}/ingest/pageviews`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rows),
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const mixed = process.argv[2] === 'mixed';
  // Either variable set: the scale scenario (issue 38), its clients in processes of their own (bench/liveScale.ts).
  if (!mixed && (process.env.LIVE_BENCH_SUBSCRIBERS !== undefined || process.env.LIVE_BENCH_FEEDS !== undefined)) return liveScale();
  const seconds = Number(process.env.LIVE_BENCH_SECONDS ?? 300);
  const warmSeconds = Number(process.env.LIVE_BENCH_WARM_SECONDS ?? 300);
  const urls = mostReadArticles(SEED).slice(0, ARTICLES);
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const subgraph = await spawnSubgraph({
    ...demoUpstreamEnv(emulator.url),
    NODE_ENV: 'production',
    // The subscribers connect directly, as a router would (no proof asked: docs/security.md).
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
  });
  const wsUrl = subgraph.url.replace(/^http/, 'ws');
  const screens: Screen[] = [];
  /** Mixed: the articles on screens, each ingested a page view every 10 s (rankings' top rows among them). */
  const moving = urls.slice(0, MIXED_PANELS_PER_WINDOW * MIXED_ARTICLES_PER_PANEL);
  let ingestRound = 0;
  const ingesting = mixed
    ? setInterval(() => void ingestPageViews(emulator.url, moving, (ingestRound += 1)).catch(() => undefined), 10_000)
    : undefined;
  const worstAges = new Map<string, number>();
  /** From each table's first refresh in the measured window on: its turns among the others, past the warm-up's first fetches. */
  const steadyAges = new Map<string, number>();
  const refreshesSeen = new Map<string, number>();
  let lastAges = new Map<string, number>();
  const sampleAges = async () => {
    const ages = await tableAges(subgraph);
    for (const [table, age] of ages) {
      worstAges.set(table, Math.max(worstAges.get(table) ?? 0, age));
      // The age fell: the table was written again (a refresh) since the last sample.
      if (age < (lastAges.get(table) ?? -1)) refreshesSeen.set(table, (refreshesSeen.get(table) ?? 0) + 1);
      if ((refreshesSeen.get(table) ?? 0) > 0) steadyAges.set(table, Math.max(steadyAges.get(table) ?? 0, age));
    }
    lastAges = ages;
  };
  try {
    if (mixed) {
      for (let index = 0; index < MIXED_RANKING_SUBSCRIBERS * MIXED_RANKINGS.length; index += 1) {
        const ranking = MIXED_RANKINGS[index % MIXED_RANKINGS.length];
        screens.push(subscribeScreen(wsUrl, ranking.table, ranking.query, {}, ranking.table));
      }
      for (const window of MIXED_PANEL_WINDOWS) {
        for (let panel = 0; panel < MIXED_PANELS_PER_WINDOW; panel += 1) {
          const panelUrls = moving.slice(panel * MIXED_ARTICLES_PER_PANEL, (panel + 1) * MIXED_ARTICLES_PER_PANEL);
          // Two screens per panel: a refresh one gets and the other not is a miss.
          for (let screen = 0; screen < 2; screen += 1) {
            screens.push(
              subscribeScreen(wsUrl, `${window.table} panel ${panel}`, MIXED_PANEL, { urls: panelUrls, days: window.days }, window.table),
            );
          }
        }
      }
    } else {
      for (let index = 0; index < RANKING_SUBSCRIBERS; index += 1) {
        const ranking = index % RANKINGS.length;
        screens.push(subscribeScreen(wsUrl, `ranking ${ranking}`, RANKINGS[ranking], {}));
      }
      for (const url of urls) screens.push(subscribeScreen(wsUrl, url, PANEL, { urls: [url] }));
    }
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
    await sampleAges();
    worstAges.clear();
    refreshesSeen.clear();
    while (performance.now() < endAt) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, endAt - performance.now())));
      rssSamples.push(memoryMiB(subgraph.pid).rss);
      if (mixed) await sampleAges();
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
    const tableLines = mixed ? mixedTableLines(screens, worstAges, steadyAges, refreshesSeen) : [];
    const lines = [
      '',
      ...(mixed
        ? [
            `### Mixed live numbers (issue 35): ${screens.length} subscribers on ${MIXED_RANKINGS.length + MIXED_PANEL_WINDOWS.length} tables, ${wallSeconds.toFixed(0)} s measured`,
            '',
            ...tableLines,
            '',
          ]
        : []),
      mixed
        ? '#### Every subscriber, the vendor and the replica (the measures of the live bench)'
        : `### Live numbers (issue 30): ${screens.length} subscribers (${RANKING_SUBSCRIBERS} on ${RANKINGS.length} rankings, ${urls.length} on one article each), ${wallSeconds.toFixed(0)} s measured`,
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
    if (ingesting !== undefined) clearInterval(ingesting);
    await Promise.all(screens.map((screen) => screen.client.dispose()));
    await subgraph.stop();
    await emulator.stop();
  }
}

/** Per table of the mixed scenario: its screens, worst age against the bound, refreshes, and its subscribers' misses. */
function mixedTableLines(
  screens: Screen[],
  worstAges: Map<string, number>,
  steadyAges: Map<string, number>,
  refreshesSeen: Map<string, number>,
): string[] {
  const tables = [...MIXED_RANKINGS.map((ranking) => ranking.table), ...MIXED_PANEL_WINDOWS.map((window) => window.table)];
  const boundSeconds = (Math.ceil(tables.length / SLOTS_PER_MINUTE) + 1) * 60;
  const misses = missesByScreen(screens);
  const rows = tables.map((table) => {
    const own = screens.filter((screen) => screen.table === table);
    const missed = own.map((screen) => misses.get(screen) ?? 0);
    const withMisses = missed.filter((count) => count > 0).length;
    const refreshed = new Set(own.flatMap((screen) => screen.fetchedAts.slice(1))).size;
    return `| ${table} | ${own.length} | ${fmtSeconds(worstAges.get(table))} | ${fmtSeconds(steadyAges.get(table))} | ${refreshesSeen.get(table) ?? 0} | ${refreshed} | ${withMisses} (${missed.reduce((a, b) => a + b, 0)} misses, most ${Math.max(0, ...missed)}) |`;
  });
  return [
    `Bound on every table's age: ⌈${tables.length} / ${SLOTS_PER_MINUTE}⌉ + 1 minutes = ${boundSeconds} s.`,
    '',
    '| table | subscribers | worst age (sampled every 5 s) | worst age from its first refresh on | refreshes (age fell) | distinct refreshes its subscribers saw | subscribers with a miss |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

function fmtSeconds(seconds: number | undefined): string {
  return seconds === undefined ? 'never fetched' : `${seconds.toFixed(0)} s`;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
