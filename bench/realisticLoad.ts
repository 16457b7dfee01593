import { Agent, request } from 'undici';
import { generateDemoData } from '../emulator/data';
import { EmulatorStore } from '../emulator/store';
import { busiestReaders } from './demoReaders';
import { demoUpstreamEnv, spawnEmulator, spawnSubgraph } from './processes';
import { summarize, type LatencySummary } from './stats';
import { readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench:realistic` (issue 14): the subgraph against the emulator's
 * realistic profile (1 dashboard query per minute, 30-minute tokens, 500 rows,
 * seeded latencies), configured as `npm run emulator` prints for that profile.
 * After a warm-up that spends one query per minute, CLIENTS closed-loop clients
 * mix 3 dashboards, `Article.analytics` for a 30-article page and
 * `recommendations` for SECONDS, while one more client asks a never-seen
 * dashboard at a time (the cold key the budget cannot pay for).
 * REALISTIC_BENCH_SECONDS sets the load phase's length (default 60).
 */

const SEED = 42;
const CLIENTS = 50;
/** The warm-up waits for the budget (one query a minute): bounded, so the bench always ends. */
const WARMUP_LIMIT_MS = 8 * 60_000;

const DASHBOARDS = [
  { dates: { last: { number: 7, unit: 'DAY' } }, groupBy: ['URL'], metrics: ['PAGE_VIEWS_TOTAL', 'UNIQUE_USERS'], limit: 10 },
  { dates: { last: { number: 1, unit: 'DAY' } }, groupBy: ['SOURCE'], metrics: ['PAGE_VIEWS_TOTAL'] },
  { dates: { last: { number: 30, unit: 'DAY' } }, metrics: ['UNIQUE_USERS', 'AVERAGE_SCROLL'] },
];

const DASHBOARD = `query Dashboard($query: DashboardQueryInput!) { dashboard(query: $query) { metric total fetchedAt } }`;
const FRONT_PAGE = `query FrontPage($reps: [_Any!]!, $window: DateWindowInput!) {
  _entities(representations: $reps) { ... on Article { analytics(window: $window) { pageViews uniqueUsers fetchedAt } } }
}`;
const RECOMMENDATIONS = `query Recommended($experience: ID!, $domain: String, $reader: ID) {
  recommendations(experienceId: $experience, domain: $domain, clientId: $reader) { url fetchedAt }
}`;

interface Operation {
  kind: 'dashboard' | 'analytics' | 'recommendations';
  query: string;
  variables: Record<string, unknown>;
}

interface Outcome {
  ms: number;
  ok: boolean;
  codes: string[];
  retryAfter?: number;
}

interface KindFigures {
  operations: number;
  failed: number;
  latency: LatencySummary;
}

export interface RealisticFigures {
  seconds: number;
  warmupMs: number;
  warmupQueries: number;
  perKind: Record<Operation['kind'], KindFigures>;
  /** Dashboard requests the emulator received during the load phase (every attempt counts). */
  reportingRequests: number;
  /** 429 answers the subgraph received from the upstream (its own metric), over the whole run. */
  upstream429: number;
  cold: { operations: number; refused: number; answered: number; otherErrors: number; refusal: LatencySummary };
}

async function send(agent: Agent, url: string, operation: Pick<Operation, 'query' | 'variables'>): Promise<Outcome> {
  const started = performance.now();
  const response = await request(url, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: operation.query, variables: operation.variables }),
  });
  const body = (await response.body.json()) as { errors?: { extensions?: { code?: string; retryAfter?: number } }[] };
  const errors = body.errors ?? [];
  const retryAfter = errors.find((error) => typeof error.extensions?.retryAfter === 'number')?.extensions?.retryAfter;
  return {
    ms: performance.now() - started,
    ok: response.statusCode === 200 && errors.length === 0,
    codes: errors.map((error) => error.extensions?.code ?? 'UNKNOWN'),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

/** Thirty articles of one domain and the demo data's busiest readers, regenerated locally: no upstream budget is spent. */
function workload(domain: string): { articles: string[]; readers: string[] } {
  const store = new EmulatorStore();
  generateDemoData(store, { seed: SEED, scale: 1, now: Date.now() });
  const articles = store.articles.filter((article) => article.domain === domain).map((article) => article.url);
  return { articles: articles.slice(0, 30), readers: busiestReaders(SEED, 1, 50) };
}

/** Yesterday, whole: an ended window, so its answer keeps (at least an hour) and its key never moves during the run. */
function yesterday(): { range: { start: string; end: string } } {
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  return { range: { start: `${day}T00:00:00Z`, end: `${day}T23:59:59Z` } };
}

/** Asks each cold operation until it is answered, waiting out the subgraph's `retryAfter` (the budget's refill) in between. */
async function warmUp(agent: Agent, url: string, operations: Operation[]): Promise<{ ms: number; queries: number }> {
  const started = performance.now();
  let queries = 0;
  for (const operation of operations) {
    for (;;) {
      const outcome = await send(agent, url, operation);
      if (outcome.ok) break;
      if (!outcome.codes.every((code) => code === 'UPSTREAM_RATE_LIMITED')) {
        throw new Error(`warm-up of ${operation.kind} failed: ${outcome.codes.join(', ')}`);
      }
      if (performance.now() - started > WARMUP_LIMIT_MS) throw new Error('warm-up did not finish within 8 minutes');
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, outcome.retryAfter ?? 5) * 1000));
    }
    if (operation.kind !== 'recommendations') queries++;
  }
  return { ms: performance.now() - started, queries };
}

async function upstream429(subgraphUrl: string): Promise<number> {
  const text = await (await fetch(subgraphUrl.replace(/\/graphql$/, '/metrics'))).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('subgraph_upstream_rate_limited_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

export async function benchRealistic(seconds: number): Promise<RealisticFigures> {
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  try {
    // The settings `npm run emulator` prints for this profile, plus caching sized to a one-query-a-minute budget.
    const subgraph = await spawnSubgraph({
      ...demoUpstreamEnv(emulator.url),
      REPORTING_RATE_PER_MINUTE: '1',
      SIGNIN_RATE_PER_MINUTE: '20',
      RENDER_RATE_PER_MINUTE: '6000',
      DASHBOARD_CACHE_TTL_SECONDS: '600',
      STALE_IF_ERROR_SECONDS: '3600',
      NODE_ENV: 'production',
      // Open on purpose: a bench (or test) is the only caller.
      CALLER_AUTH: 'none',
      LOG_LEVEL: 'error',
    });
    try {
      return await run(emulator.url, subgraph.url, emulator.experiences, seconds);
    } finally {
      await subgraph.stop();
    }
  } finally {
    await emulator.stop();
  }
}

async function run(
  emulatorUrl: string,
  subgraphUrl: string,
  experiences: { id: string; rankingProfile: string; domain: string }[],
  seconds: number,
): Promise<RealisticFigures> {
  const personalized = experiences.find((e) => e.rankingProfile === 'personalized') ?? experiences[0];
  const { articles, readers } = workload(personalized.domain);
  const reps = articles.map((url) => ({ __typename: 'Article', url }));
  const window = yesterday();
  const warm: Operation[] = [
    ...DASHBOARDS.map((query): Operation => ({ kind: 'dashboard', query: DASHBOARD, variables: { query } })),
    { kind: 'analytics', query: FRONT_PAGE, variables: { reps, window } },
  ];
  const recommendation = (i: number): Operation => ({
    kind: 'recommendations',
    query: RECOMMENDATIONS,
    variables: { experience: personalized.id, domain: personalized.domain, reader: readers[i % readers.length] },
  });
  const agent = new Agent({ connections: CLIENTS + 1, keepAliveTimeout: 30_000 });
  try {
    const warmup = await warmUp(agent, subgraphUrl, [...warm, ...readers.map((_, i) => recommendation(i))]);
    await resetStats(emulatorUrl);
    const samples: Record<Operation['kind'], { ms: number[]; failed: number }> = {
      dashboard: { ms: [], failed: 0 },
      analytics: { ms: [], failed: 0 },
      recommendations: { ms: [], failed: 0 },
    };
    const cold = { operations: 0, refused: 0, answered: 0, otherErrors: 0, refusalMs: [] as number[] };
    const endAt = performance.now() + seconds * 1000;
    let next = 0;
    const client = async () => {
      while (performance.now() < endAt) {
        const i = next++;
        // Three dashboards, the front page's analytics, recommendations: a fifth of the traffic each.
        const operation = i % 5 < 4 ? warm[i % 5] : recommendation(i);
        const outcome = await send(agent, subgraphUrl, operation);
        samples[operation.kind].ms.push(outcome.ms);
        if (!outcome.ok) samples[operation.kind].failed++;
      }
    };
    // One never-seen dashboard at a time: what a new widget meets when the minute's query is already spent.
    const coldClient = async () => {
      for (let i = 0; performance.now() < endAt; i++) {
        const query = { dates: { last: { number: 2 + (i % 300), unit: 'HOUR' } }, metrics: ['PAGE_VIEWS_TOTAL'] };
        const outcome = await send(agent, subgraphUrl, { query: DASHBOARD, variables: { query } });
        cold.operations++;
        if (outcome.ok) cold.answered++;
        else if (outcome.codes.every((code) => code === 'UPSTREAM_RATE_LIMITED')) {
          cold.refused++;
          cold.refusalMs.push(outcome.ms);
        } else cold.otherErrors++;
      }
    };
    await Promise.all([...Array.from({ length: CLIENTS }, client), coldClient()]);
    const stats = await readStats(emulatorUrl);
    const kind = (k: Operation['kind']): KindFigures => ({
      operations: samples[k].ms.length,
      failed: samples[k].failed,
      latency: summarize(samples[k].ms),
    });
    return {
      seconds,
      warmupMs: warmup.ms,
      warmupQueries: warmup.queries,
      perKind: { dashboard: kind('dashboard'), analytics: kind('analytics'), recommendations: kind('recommendations') },
      reportingRequests: stats.dashboard.count,
      upstream429: await upstream429(subgraphUrl),
      cold: { ...cold, refusal: summarize(cold.refusalMs) },
    };
  } finally {
    await agent.close();
  }
}

function report(figures: RealisticFigures): string {
  const ms = (value: number) => `${(value * 1000).toFixed(0)} µs`;
  const rows = (['dashboard', 'analytics', 'recommendations'] as const).map((k) => {
    const f = figures.perKind[k];
    return `| ${k} | ${f.operations} | ${f.failed} | ${ms(f.latency.p50)} | ${ms(f.latency.p99)} |`;
  });
  const c = figures.cold;
  return [
    `Realistic profile, ${CLIENTS} clients for ${figures.seconds} s (warm-up: ${figures.warmupQueries} queries in ${(figures.warmupMs / 1000).toFixed(0)} s)`,
    '',
    '| warm operations | count | failed | p50 | p99 |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Reporting requests received by the emulator during the load: ${figures.reportingRequests} ` +
      `(${((figures.reportingRequests * 60) / figures.seconds).toFixed(2)} per minute); upstream 429s: ${figures.upstream429}`,
    `Cold dashboards: ${c.operations} asked, ${c.refused} refused at once (UPSTREAM_RATE_LIMITED), ${c.answered} answered, ` +
      `${c.otherErrors} other errors; refusal time p50 ${ms(c.refusal.p50)}, p99 ${ms(c.refusal.p99)}`,
  ].join('\n');
}

if (require.main === module) {
  const seconds = Number(process.env.REALISTIC_BENCH_SECONDS ?? '60');
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error('REALISTIC_BENCH_SECONDS must be a number > 0');
  benchRealistic(seconds)
    .then((figures) => process.stdout.write(`${report(figures)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
