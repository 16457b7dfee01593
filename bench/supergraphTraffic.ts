import { Agent, request } from 'undici';
import { busiestReaders } from './demoReaders';
import { demoUpstreamEnv, type EmulatorProcess, spawnEmulator, spawnSubgraph, type SubgraphProcess } from './processes';
import { fmt, summarize, type LatencySummary } from './stats';
import { readStats, resetStats, signIn, topUrls } from './upstreamClient';

/*
 * The "supergraph traffic" scenario of issue 6: many clients of a company
 * supergraph asking the same few widgets, against the emulator with its
 * DEFAULT limits (600 dashboard queries per minute per account). Each
 * operation mixes one of 3 dashboards, `recommendations` for one of 50
 * readers of one experience, and `Article.related` for one of 30 articles.
 * Run for each configuration: the protection on (the defaults) and off.
 */

const SEED = 42;
const CLIENTS = 100;

export interface TrafficFigures {
  operations: number;
  perSecond: number;
  /** Operations whose response carried any error. */
  failed: number;
  latency: LatencySummary;
  /** Errors carrying an upstream 429 (upstream 429s absorbed by stale answers are not visible here). */
  upstream429: number;
  dashboard: { calls: number; keys: number };
  render: { calls: number; keys: number };
}

export interface OutageFigures {
  /** Operations on warm keys while render.json was down. */
  warm: { operations: number; failed: number };
  /** Operations on never-seen keys while render.json was down. */
  cold: { operations: number; failed: number; latency: LatencySummary };
  /** One extra client asking only `recommendations` for never-seen readers, one at a time, while render.json is down. */
  coldProbe: { operations: number; failed: number; latency: LatencySummary };
  /** From clearing the fault to the first successful cold operation. */
  recoveryMs: number | undefined;
}

export interface ConfigurationFigures {
  name: string;
  normal: TrafficFigures;
  faulty: TrafficFigures;
  outage: OutageFigures;
}

/** Protection off, as near as configuration gets to the code before issue 6 (identical calls in flight are still shared). */
const UNPROTECTED = {
  RENDER_CACHE_TTL_SECONDS: '0',
  DASHBOARD_CACHE_TTL_SECONDS: '0',
  STALE_IF_ERROR_SECONDS: '0',
  REPORTING_RATE_PER_MINUTE: '1000000000',
  SIGNIN_RATE_PER_MINUTE: '1000000000',
  RENDER_RATE_PER_MINUTE: '1000000000',
  BREAKER_COOLDOWN_SECONDS: '0.001',
};

/** The emulator's own default budgets, as the embedded mode would use. */
const PROTECTED = { REPORTING_RATE_PER_MINUTE: '600', SIGNIN_RATE_PER_MINUTE: '20', RENDER_RATE_PER_MINUTE: '6000' };

interface Workload {
  dashboards: unknown[];
  personalized: { id: string; domain: string };
  similar: { id: string };
  readers: string[];
  articles: string[];
}

const OPERATION = `query Widgets($dashboard: DashboardQueryInput!, $experience: ID!, $domain: String, $reader: ID, $similar: ID!, $reps: [_Any!]!) {
  dashboard(query: $dashboard) { metric total fetchedAt }
  recommendations(experienceId: $experience, domain: $domain, clientId: $reader) { url fetchedAt }
  _entities(representations: $reps) { ... on Article { related(experienceId: $similar) { url fetchedAt } } }
}`;

function variables(workload: Workload, i: number, reader?: string): Record<string, unknown> {
  return {
    dashboard: workload.dashboards[i % workload.dashboards.length],
    experience: workload.personalized.id,
    domain: workload.personalized.domain,
    reader: reader ?? workload.readers[i % workload.readers.length],
    similar: workload.similar.id,
    reps: [{ __typename: 'Article', url: workload.articles[i % workload.articles.length] }],
  };
}

interface Outcome {
  ms: number;
  ok: boolean;
  upstream429: number;
}

async function send(agent: Agent, url: string, vars: Record<string, unknown>, query = OPERATION): Promise<Outcome> {
  const started = performance.now();
  const response = await request(url, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: vars }),
  });
  const body = (await response.body.json()) as { errors?: { extensions?: { upstream?: { status?: number } } }[] };
  const errors = body.errors ?? [];
  return {
    ms: performance.now() - started,
    ok: response.statusCode === 200 && errors.length === 0,
    upstream429: errors.filter((error) => error.extensions?.upstream?.status === 429).length,
  };
}

/** CLIENTS closed-loop clients for `seconds`; `pick` chooses each operation's variables. */
async function drive(
  url: string,
  seconds: number,
  pick: (i: number) => Record<string, unknown>,
  record: (outcome: Outcome, i: number) => void,
) {
  const agent = new Agent({ connections: CLIENTS, keepAliveTimeout: 30_000 });
  const endAt = performance.now() + seconds * 1000;
  let next = 0;
  const client = async () => {
    while (performance.now() < endAt) {
      const i = next++;
      record(await send(agent, url, pick(i)), i);
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, client));
  } finally {
    await agent.close();
  }
}

async function traffic(emulator: EmulatorProcess, subgraph: SubgraphProcess, workload: Workload, seconds: number): Promise<TrafficFigures> {
  await resetStats(emulator.url);
  const samples: number[] = [];
  let failed = 0;
  let upstream429 = 0;
  const started = performance.now();
  await drive(
    subgraph.url,
    seconds,
    (i) => variables(workload, i),
    (outcome) => {
      samples.push(outcome.ms);
      if (!outcome.ok) failed++;
      upstream429 += outcome.upstream429;
    },
  );
  const elapsed = (performance.now() - started) / 1000;
  const stats = await readStats(emulator.url);
  return {
    operations: samples.length,
    perSecond: samples.length / elapsed,
    failed,
    latency: summarize(samples),
    upstream429,
    dashboard: { calls: stats.dashboard.count, keys: stats.dashboard.distinct },
    render: { calls: stats.render.count, keys: stats.render.distinct },
  };
}

async function fault(emulator: EmulatorProcess, body: Record<string, unknown> | undefined): Promise<void> {
  const response = await fetch(`${emulator.url}/__emulator/faults`, {
    method: body === undefined ? 'DELETE' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`faults answered ${response.status}`);
}

/**
 * render.json down for `downSeconds`, then back for `afterSeconds`. One
 * operation in ten asks for a reader never seen before (a cold key).
 */
async function outage(
  emulator: EmulatorProcess,
  subgraph: SubgraphProcess,
  workload: Workload,
  downSeconds: number,
  afterSeconds: number,
): Promise<OutageFigures> {
  const figures: OutageFigures = {
    warm: { operations: 0, failed: 0 },
    cold: { operations: 0, failed: 0, latency: summarize([]) },
    coldProbe: { operations: 0, failed: 0, latency: summarize([]) },
    recoveryMs: undefined,
  };
  const probeSamples: number[] = [];
  const coldSamples: number[] = [];
  let clearedAt: number | undefined;
  const isCold = (i: number) => i % 10 === 0;
  const pick = (i: number) => variables(workload, i, isCold(i) ? `cold-reader-${i}` : undefined);
  await fault(emulator, { target: 'render', status: 503 });
  const clear = setTimeout(() => {
    clearedAt = performance.now();
    fault(emulator, undefined).catch((error: unknown) => process.stderr.write(`clearing faults failed: ${String(error)}\n`));
  }, downSeconds * 1000);
  const probing = probeCold(subgraph.url, workload, downSeconds, (outcome) => {
    probeSamples.push(outcome.ms);
    figures.coldProbe.operations++;
    if (!outcome.ok) figures.coldProbe.failed++;
  });
  await drive(subgraph.url, downSeconds + afterSeconds, pick, (outcome, i) => {
    const down = clearedAt === undefined;
    if (!down) {
      if (isCold(i) && outcome.ok && figures.recoveryMs === undefined && clearedAt !== undefined)
        figures.recoveryMs = performance.now() - clearedAt;
      return;
    }
    if (isCold(i)) {
      figures.cold.operations++;
      if (!outcome.ok) figures.cold.failed++;
      coldSamples.push(outcome.ms);
    } else {
      figures.warm.operations++;
      if (!outcome.ok) figures.warm.failed++;
    }
  });
  clearTimeout(clear);
  await probing;
  figures.cold.latency = summarize(coldSamples);
  figures.coldProbe.latency = summarize(probeSamples);
  return figures;
}

const COLD_PROBE = `query Cold($experience: ID!, $domain: String, $reader: ID) {
  recommendations(experienceId: $experience, domain: $domain, clientId: $reader) { url }
}`;

/** Skips the first second of the outage, while the breaker is still counting failures. */
async function probeCold(url: string, workload: Workload, seconds: number, record: (outcome: Outcome) => void): Promise<void> {
  const agent = new Agent({ connections: 1 });
  const endAt = performance.now() + seconds * 1000;
  const startAt = performance.now() + 1000;
  try {
    for (let i = 0; performance.now() < endAt; i++) {
      const vars = { experience: workload.personalized.id, domain: workload.personalized.domain, reader: `probe-reader-${i}` };
      const outcome = await send(agent, url, vars, COLD_PROBE);
      if (performance.now() >= startAt) record(outcome);
    }
  } finally {
    await agent.close();
  }
}

async function workloadOf(emulator: EmulatorProcess): Promise<Workload> {
  const personalized = emulator.experiences.find((e) => e.rankingProfile === 'personalized') ?? emulator.experiences[0];
  const similar = emulator.experiences.find((e) => e.rankingProfile === 'similar') ?? emulator.experiences[0];
  const token = await signIn(emulator.url);
  const articles = (await topUrls(emulator.url, token, similar.domain, 30)).slice(0, 30);
  const dashboards = [
    { dates: { last: { number: 7, unit: 'DAY' } }, groupBy: ['URL'], metrics: ['PAGE_VIEWS_TOTAL', 'UNIQUE_USERS'], limit: 10 },
    { dates: { last: { number: 1, unit: 'DAY' } }, groupBy: ['SOURCE'], metrics: ['PAGE_VIEWS_TOTAL'] },
    { dates: { last: { number: 30, unit: 'DAY' } }, metrics: ['REVENUE_TOTAL', 'ADS_IMPRESSIONS'] },
  ];
  return { dashboards, personalized, similar, readers: busiestReaders(SEED, 1, 50), articles };
}

/** One configuration on a fresh emulator (default limits) and a fresh subgraph. */
async function runConfiguration(
  name: string,
  env: Record<string, string>,
  seconds: number,
  downSeconds: number,
): Promise<ConfigurationFigures> {
  const emulator = await spawnEmulator({ EMULATOR_SEED: String(SEED) });
  try {
    const workload = await workloadOf(emulator);
    const subgraph = await spawnSubgraph({
      NODE_ENV: 'production',
      // Open on purpose: a bench (or test) is the only caller.
      CALLER_AUTH: 'none',
      LOG_LEVEL: 'error',
      ...demoUpstreamEnv(emulator.url),
      ...env,
    });
    try {
      const normal = await traffic(emulator, subgraph, workload, seconds);
      await fault(emulator, { target: 'render', status: 503, rate: 0.3 });
      const faulty = await traffic(emulator, subgraph, workload, seconds);
      await fault(emulator, undefined);
      const down = await outage(emulator, subgraph, workload, downSeconds, 15);
      return { name, normal, faulty, outage: down };
    } finally {
      await subgraph.stop();
    }
  } finally {
    await emulator.stop();
  }
}

/**
 * `repetitions` runs of each configuration, interleaved (off, on, off, on, …)
 * so that the machine's changing load falls on both alike; each figure of the
 * report is the median over the repetitions.
 */
export async function benchSupergraphTraffic(seconds: number, repetitions: number): Promise<ConfigurationFigures[]> {
  const downSeconds = Math.min(30, seconds);
  const configurations = [
    { name: 'protection off (TTL 0, no budgets, breaker ~off)', env: UNPROTECTED },
    { name: 'protection on (defaults)', env: PROTECTED },
  ];
  const runs: ConfigurationFigures[][] = configurations.map(() => []);
  for (let repetition = 0; repetition < repetitions; repetition++) {
    for (const [index, { name, env }] of configurations.entries()) {
      runs[index].push(await runConfiguration(name, env, seconds, downSeconds));
    }
  }
  return runs.map(medianConfiguration);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Every figure replaced by its median over the runs. */
function medianConfiguration(runs: ConfigurationFigures[]): ConfigurationFigures {
  return {
    name: runs[0].name,
    normal: medianTraffic(runs.map((run) => run.normal)),
    faulty: medianTraffic(runs.map((run) => run.faulty)),
    outage: medianOutage(runs.map((run) => run.outage)),
  };
}

function medianOf<T>(items: T[], pick: (item: T) => number): number {
  return median(items.map(pick));
}

function medianLatency(items: LatencySummary[]): LatencySummary {
  return {
    count: medianOf(items, (x) => x.count),
    p50: medianOf(items, (x) => x.p50),
    p99: medianOf(items, (x) => x.p99),
    mean: medianOf(items, (x) => x.mean),
    max: medianOf(items, (x) => x.max),
  };
}

function medianTraffic(items: TrafficFigures[]): TrafficFigures {
  return {
    operations: medianOf(items, (x) => x.operations),
    perSecond: medianOf(items, (x) => x.perSecond),
    failed: medianOf(items, (x) => x.failed),
    latency: medianLatency(items.map((x) => x.latency)),
    upstream429: medianOf(items, (x) => x.upstream429),
    dashboard: { calls: medianOf(items, (x) => x.dashboard.calls), keys: medianOf(items, (x) => x.dashboard.keys) },
    render: { calls: medianOf(items, (x) => x.render.calls), keys: medianOf(items, (x) => x.render.keys) },
  };
}

const medianCount = (items: { operations: number; failed: number }[]) => ({
  operations: medianOf(items, (x) => x.operations),
  failed: medianOf(items, (x) => x.failed),
});

function medianOutage(items: OutageFigures[]): OutageFigures {
  // A run that never recovered counts as the longest.
  const recovery = medianOf(items, (x) => x.recoveryMs ?? Number.POSITIVE_INFINITY);
  return {
    warm: medianCount(items.map((x) => x.warm)),
    cold: { ...medianCount(items.map((x) => x.cold)), latency: medianLatency(items.map((x) => x.cold.latency)) },
    coldProbe: { ...medianCount(items.map((x) => x.coldProbe)), latency: medianLatency(items.map((x) => x.coldProbe.latency)) },
    recoveryMs: Number.isFinite(recovery) ? recovery : undefined,
  };
}

export function supergraphReport(seconds: number, repetitions: number, configurations: ConfigurationFigures[]): string {
  const row = (label: string, cell: (c: ConfigurationFigures) => string) => `| ${label} | ${configurations.map(cell).join(' | ')} |`;
  const t = (f: TrafficFigures) =>
    `${f.operations.toLocaleString('en')} ops, ${f.perSecond.toFixed(0)}/s; failed ${f.failed} (${((100 * f.failed) / Math.max(1, f.operations)).toFixed(1)}%); ` +
    `p50 ${fmt(f.latency.p50)}, p99 ${fmt(f.latency.p99)}; upstream 429s seen ${f.upstream429}; ` +
    `dashboard ${f.dashboard.calls} calls / ${f.dashboard.keys} keys, render ${f.render.calls} calls / ${f.render.keys} keys`;
  const o = (f: OutageFigures) =>
    `warm: ${f.warm.failed} of ${f.warm.operations} failed; cold: ${f.cold.failed} of ${f.cold.operations} failed, p50 ${fmt(f.cold.latency.p50)}, p99 ${fmt(f.cold.latency.p99)}; ` +
    `cold probe (one at a time): ${f.coldProbe.failed} of ${f.coldProbe.operations} failed, p50 ${fmt(f.coldProbe.latency.p50)}, p99 ${fmt(f.coldProbe.latency.p99)}; ` +
    `recovered ${f.recoveryMs === undefined ? 'never' : `${(f.recoveryMs / 1000).toFixed(1)} s`} after the fault cleared`;
  return [
    `### Supergraph traffic (${CLIENTS} clients, ${seconds} s per phase, emulator default limits; medians of ${repetitions} interleaved runs)`,
    '',
    `| phase | ${configurations.map((c) => c.name).join(' | ')} |`,
    `|---|${configurations.map(() => '---').join('|')}|`,
    row('normal', (c) => t(c.normal)),
    row('render.json failing 30% (503)', (c) => t(c.faulty)),
    row(`render.json down ${Math.min(30, seconds)} s, then 15 s after`, (c) => o(c.outage)),
    '',
  ].join('\n');
}
