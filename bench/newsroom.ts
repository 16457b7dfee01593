import { Agent, request } from 'undici';
import { startRedisServer, type RedisServer } from '../test/support/redisServer';
import { spawnEmulator, spawnSubgraph, type EmulatorProcess, type SubgraphProcess } from './processes';
import { mostReadArticles } from './mostRead';
import { fmt } from './stats';
import { DEMO_EMAIL, DEMO_PASSWORD, readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench -- newsroom` (issue 21): a newsroom on one dashboard query a
 * minute. The emulator's realistic profile (1 query a minute with
 * Retry-After, 500 rows, ad metrics outside the plan); the subgraph on its
 * real-host defaults (no rate variable set). EDITORS editors each open an
 * article page every 10 s (its panel asks `Article.analytics`, default window,
 * through `_entities` as a router sends it), picking among the POPULAR most-read
 * articles with skewed popularity (Zipf), 10 % of them outside the 500 most
 * read; WIDGETS homepage widgets ask `topArticles(limit: 10)` every 5 s.
 * NEWSROOM_BENCH_SECONDS (default 300), once with one replica, once with three
 * sharing Redis.
 */

const SEED = 42;
const EDITORS = 20;
const WIDGETS = 5;
const POPULAR = 200;
const LONG_TAIL_SHARE = 0.1;
const EDITOR_PERIOD_MS = 10_000;
const WIDGET_PERIOD_MS = 5_000;
const WARM_MS = 120_000;

const PANEL = `query Panel($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews uniqueUsers averageScroll fetchedAt } } } }`;
const WIDGET = `query Widget { topArticles(limit: 10) { rank value article { url } } }`;

interface Ask {
  kind: 'editor' | 'widget';
  longTail: boolean;
  atMs: number;
  ms: number;
  ok: boolean;
  codes: string[];
}

/** A deterministic stream of numbers in [0, 1) (mulberry32): the same run every time. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf over the popular articles (a few on many screens, most on one), a share from beyond the top 500. */
function picker(urls: string[], next: () => number): () => { url: string; longTail: boolean } {
  const weights = Array.from({ length: POPULAR }, (_, rank) => 1 / (rank + 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const tail = urls.slice(500);
  return () => {
    if (tail.length > 0 && next() < LONG_TAIL_SHARE) return { url: tail[Math.floor(next() * tail.length)], longTail: true };
    let target = next() * total;
    for (let rank = 0; rank < POPULAR; rank++) {
      target -= weights[rank];
      if (target <= 0) return { url: urls[rank], longTail: false };
    }
    return { url: urls[POPULAR - 1], longTail: false };
  };
}

/** One ask: answered (no error), or the error codes it got. */
async function send(agent: Agent, url: string, query: string, variables: Record<string, unknown>): Promise<string[]> {
  const response = await request(url, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.body.json()) as { errors?: { extensions?: { code?: string } }[] };
  const codes = (body.errors ?? []).map((error) => error.extensions?.code ?? 'UNKNOWN');
  return response.statusCode === 200 ? codes : [`HTTP_${response.statusCode}`, ...codes];
}

/** A metric's sum over the replicas' /metrics. */
async function scrapeSum(replicas: SubgraphProcess[], prefix: string): Promise<number> {
  let sum = 0;
  for (const replica of replicas) {
    const text = await (await fetch(replica.url.replace(/\/graphql$/, '/metrics'))).text();
    for (const line of text.split('\n')) if (line.startsWith(prefix)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

async function runLoad(replicas: SubgraphProcess[], urls: string[], seconds: number): Promise<Ask[]> {
  const agent = new Agent({ connections: EDITORS + WIDGETS + 4, keepAliveTimeout: 30_000 });
  const asks: Ask[] = [];
  const started = performance.now();
  const endAt = started + seconds * 1000;
  const loop = async (kind: Ask['kind'], index: number, periodMs: number) => {
    const next = random(SEED * 1000 + index + (kind === 'widget' ? 500 : 0));
    const pick = picker(urls, next);
    // Staggered, so the asks spread over the period as real screens do.
    await new Promise((resolve) => setTimeout(resolve, next() * periodMs));
    for (let turn = 0; performance.now() < endAt && turn < 10_000; turn++) {
      const replica = replicas[(index + turn) % replicas.length];
      const article = kind === 'editor' ? pick() : { url: '', longTail: false };
      const atMs = performance.now() - started;
      const variables = kind === 'editor' ? { reps: [{ __typename: 'Article', url: article.url }] } : {};
      const codes = await send(agent, replica.url, kind === 'editor' ? PANEL : WIDGET, variables).catch(() => ['NETWORK']);
      asks.push({ kind, longTail: article.longTail, atMs, ms: performance.now() - started - atMs, ok: codes.length === 0, codes });
      const waitMs = periodMs - (performance.now() - started - atMs);
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };
  try {
    await Promise.all([
      ...Array.from({ length: EDITORS }, (_, i) => loop('editor', i, EDITOR_PERIOD_MS)),
      ...Array.from({ length: WIDGETS }, (_, i) => loop('widget', i, WIDGET_PERIOD_MS)),
    ]);
  } finally {
    await agent.close();
  }
  return asks;
}

function errorTally(asks: Ask[]): string {
  const counts = new Map<string, number>();
  for (const ask of asks)
    for (const code of new Set(ask.codes)) counts.set(`${ask.kind} ${code}`, (counts.get(`${ask.kind} ${code}`) ?? 0) + 1);
  return counts.size === 0 ? 'none' : [...counts].map(([code, count]) => `${code} × ${count}`).join(', ');
}

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`;
}

function row(label: string, asks: Ask[]): string {
  const early = asks.filter((ask) => ask.atMs < WARM_MS);
  const late = asks.filter((ask) => ask.atMs >= WARM_MS);
  const answered = (list: Ask[]) => list.filter((ask) => ask.ok).length;
  const waits = late.map((ask) => ask.ms).sort((a, b) => a - b);
  const at = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? 0;
  return `| ${label} | ${asks.length} | ${percent(answered(early), early.length)} | ${percent(answered(late), late.length)} | ${fmt(at(0.5))} | ${fmt(at(0.95))} |`;
}

async function scenario(
  emulator: EmulatorProcess,
  urls: string[],
  replicaCount: number,
  redis: RedisServer | undefined,
  seconds: number,
): Promise<string> {
  const env = {
    REPORTING_BASE_URL: emulator.url,
    RECOMMENDER_URL: emulator.url,
    REPORTING_EMAIL: DEMO_EMAIL,
    REPORTING_PASSWORD: DEMO_PASSWORD,
    NODE_ENV: 'production',
    // Open on purpose: a bench (or test) is the only caller.
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
    ...(redis === undefined ? {} : { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `newsroom-${Date.now()}:` }),
  };
  const replicas = await Promise.all(Array.from({ length: replicaCount }, () => spawnSubgraph(env)));
  try {
    await resetStats(emulator.url);
    const countedFrom = performance.now();
    const asks = await runLoad(replicas, urls, seconds);
    const stats = await readStats(emulator.url);
    const countedSeconds = (performance.now() - countedFrom) / 1000;
    const queries = stats.dashboard.count;
    const rateLimited = await scrapeSum(replicas, 'subgraph_upstream_rate_limited_total');
    const answeredSum = await scrapeSum(replicas, 'subgraph_analytics_asks_per_query_sum');
    const answeredCount = await scrapeSum(replicas, 'subgraph_analytics_asks_per_query_count');
    const editors = asks.filter((ask) => ask.kind === 'editor');
    return [
      `#### ${replicaCount} replica${replicaCount === 1 ? '' : 's'}${redis === undefined ? '' : ' on Redis'}, ${seconds} s`,
      '',
      '| asks | count | answered, first 2 min | answered, after | p50 wait after | p95 wait after |',
      '|---|---:|---:|---:|---:|---:|',
      row('editors (all)', editors),
      row(
        'editors, top 200',
        editors.filter((ask) => !ask.longTail),
      ),
      row(
        'editors, long tail',
        editors.filter((ask) => ask.longTail),
      ),
      row(
        'widgets',
        asks.filter((ask) => ask.kind === 'widget'),
      ),
      '',
      `Vendor dashboard queries: ${queries} in ${countedSeconds.toFixed(0)} s (${((queries * 60) / countedSeconds).toFixed(2)} a minute); ` +
        `upstream 429s: ${rateLimited}; asks answered per vendor query: ${queries === 0 ? 'n/a' : (asks.filter((ask) => ask.ok).length / queries).toFixed(1)} ` +
        `(of which waited for their unit: ${answeredSum} asks over ${answeredCount} queries).`,
      '',
      `Errors of unanswered asks after 2 min: ${errorTally(asks.filter((ask) => ask.atMs >= WARM_MS && !ask.ok))}.`,
      '',
    ].join('\n');
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

async function main(): Promise<void> {
  const seconds = Number(process.env.NEWSROOM_BENCH_SECONDS ?? 300);
  const urls = mostReadArticles(SEED);
  process.stdout.write(
    `\n### Newsroom (issue 21): ${EDITORS} editors on ${POPULAR} articles (+${LONG_TAIL_SHARE * 100} % long tail), ${WIDGETS} widgets\n\n`,
  );
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const redis = await startRedisServer();
  try {
    process.stdout.write(await scenario(emulator, urls, 1, undefined, seconds));
    // The vendor's minute refills before the next run: it starts as cold as the first.
    await new Promise((resolve) => setTimeout(resolve, 65_000));
    process.stdout.write(await scenario(emulator, urls, 3, redis, seconds));
  } finally {
    await Promise.all([emulator.stop(), redis.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
