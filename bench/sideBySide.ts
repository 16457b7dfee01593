import { writeFileSync } from 'node:fs';
import { createClient, type Client } from 'graphql-ws';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { EDITOR_PERIOD_MS, EDITORS, PANEL, SEED, WIDGET, WIDGET_PERIOD_MS, WIDGETS, articles, picker, random } from './newsroomLoad';
import { demoUpstreamEnv, spawnEmulator, spawnSubgraph, type EmulatorProcess, type SubgraphProcess } from './processes';

/*
 * `npm run bench -- side-by-side` (issue 37): this build and a base build
 * given answers ask for ask. Each build runs against its own emulator (the
 * realistic profile, one dashboard query a minute, the same seed, started
 * together), so both see the same demo data and the same budget. The
 * newsroom's load (bench/newsroomLoad.ts: editors' panels, widgets'
 * rankings) sends each ask to both builds at the same moment, and live
 * subscribers (rankings and article panels) subscribe to both. An answer is
 * compared without its `fetchedAt` and with each error reduced to its code and
 * path (a message may count a Retry-After down); a subscriber's emissions are
 * compared as the same list. SIDE_BY_SIDE_BASE: the base build's
 * `dist/src/index.js` (required); SIDE_BY_SIDE_SECONDS (default 300);
 * SIDE_BY_SIDE_DUMP: a file to write every pair and emission to.
 */

interface Build {
  name: string;
  emulator: EmulatorProcess;
  subgraph: SubgraphProcess;
}

interface Pair {
  kind: 'editor' | 'widget';
  atMs: number;
  answers: [string, string];
}

const LIVE_RANKINGS = 5;
const LIVE_PANELS = 5;

/** An answer as both builds must agree on it: no `fetchedAt`, errors by code and path only. */
function normalized(body: unknown): string {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'fetchedAt')
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  const { data, errors } = body as { data?: unknown; errors?: { path?: unknown; extensions?: { code?: unknown } }[] };
  return JSON.stringify({
    data: strip(data ?? null),
    errors: (errors ?? []).map((error) => ({ code: error.extensions?.code ?? 'UNKNOWN', path: error.path ?? null })),
  });
}

async function ask(agent: Agent, url: string, query: string, variables: Record<string, unknown>): Promise<string> {
  try {
    const response = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return `${response.statusCode} ${normalized(await response.body.json())}`;
  } catch (error) {
    return `NETWORK ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The newsroom's asks (same seeds as bench/newsroomLoad.ts), each sent to both builds at once. */
async function newsroomPairs(builds: [Build, Build], urls: string[], seconds: number): Promise<Pair[]> {
  const agent = new Agent({ connections: 2 * (EDITORS + WIDGETS) + 8, keepAliveTimeout: 30_000 });
  const pairs: Pair[] = [];
  const started = performance.now();
  const endAt = started + seconds * 1000;
  const loop = async (kind: Pair['kind'], index: number, periodMs: number) => {
    const next = random(SEED * 1000 + index + (kind === 'widget' ? 500 : 0));
    const pick = picker(urls, next);
    await new Promise((resolve) => setTimeout(resolve, next() * periodMs));
    while (performance.now() < endAt) {
      const atMs = performance.now() - started;
      const query = kind === 'editor' ? PANEL : WIDGET;
      const variables = kind === 'editor' ? { reps: [{ __typename: 'Article', url: pick().url }] } : {};
      const [a, b] = await Promise.all(builds.map((build) => ask(agent, build.subgraph.url, query, variables)));
      pairs.push({ kind, atMs, answers: [a, b] });
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
  return pairs;
}

/** Live subscribers on one build: rankings and article panels; each one's emissions, normalized, in order. */
function subscribeAll(build: Build, urls: string[]): { emissions: string[][]; close(): void } {
  const client: Client = createClient({
    url: build.subgraph.url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => undefined,
  });
  const operations = [
    ...Array.from({ length: LIVE_RANKINGS }, (_, i) => ({
      query: `subscription { topArticles(limit: ${5 + i}) { rank value article { url } fetchedAt } }`,
    })),
    ...Array.from({ length: LIVE_PANELS }, (_, i) => ({
      query: `subscription Panel($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews uniqueUsers fetchedAt } }`,
      variables: { urls: urls.slice(i * 3, i * 3 + 3) },
    })),
  ];
  const emissions = operations.map(() => [] as string[]);
  const stops = operations.map((operation, index) =>
    client.subscribe(operation, {
      next: (value) => emissions[index].push(normalized(value)),
      error: (error) => emissions[index].push(`error ${JSON.stringify(error)}`),
      complete: () => undefined,
    }),
  );
  return {
    emissions,
    close: () => {
      for (const stop of stops) stop();
      void client.dispose();
    },
  };
}

/** Consecutive equal emissions are one (a feed sends what changed; a repeat is the transport's, not the numbers'). */
function distinct(list: string[]): string[] {
  return list.filter((value, index) => index === 0 || value !== list[index - 1]);
}

function report(pairs: Pair[], live: [string[][], string[][]], seconds: number, baseName: string): string {
  const identical = pairs.filter((pair) => pair.answers[0] === pair.answers[1]);
  const differing = pairs.filter((pair) => pair.answers[0] !== pair.answers[1]);
  const byKind = (kind: Pair['kind']) => {
    const all = pairs.filter((pair) => pair.kind === kind);
    return `${all.filter((pair) => pair.answers[0] === pair.answers[1]).length} of ${all.length}`;
  };
  const answered = (index: 0 | 1) => pairs.filter((pair) => !pair.answers[index].includes('"code"')).length;
  const liveSame = live[0].filter((list, index) => JSON.stringify(distinct(list)) === JSON.stringify(distinct(live[1][index]))).length;
  const lines = [
    `#### This build and ${baseName}, side by side, ${seconds} s`,
    '',
    '| | this build | base |',
    '|---|---:|---:|',
    `| asks answered (of ${pairs.length}) | ${answered(0)} | ${answered(1)} |`,
    `| subscribers' emissions (distinct, summed) | ${live[0].reduce((sum, list) => sum + distinct(list).length, 0)} | ${live[1].reduce((sum, list) => sum + distinct(list).length, 0)} |`,
    '',
    `Identical answers, ask for ask: **${identical.length} of ${pairs.length}** (editors ${byKind('editor')}, widgets ${byKind('widget')}).`,
    `Identical emissions, subscriber for subscriber: **${liveSame} of ${live[0].length}**.`,
  ];
  if (differing.length > 0) {
    lines.push('', 'The first differing asks (this build | base):', '');
    for (const pair of differing.slice(0, 5)) {
      lines.push(
        `- ${pair.kind} at ${(pair.atMs / 1000).toFixed(1)} s: \`${pair.answers[0].slice(0, 160)}\` | \`${pair.answers[1].slice(0, 160)}\``,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

async function startBuild(name: string, entry: string | undefined): Promise<Build> {
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const env = {
    ...demoUpstreamEnv(emulator.url),
    NODE_ENV: 'production',
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
    // Windows end on the hour: two builds fetching the same table a few seconds apart read the same window (with the
    // default 60 s, a fetch on each side of a minute's end reads different numbers, which says nothing of the builds).
    ANALYTICS_WINDOW_ALIGN_SECONDS: '3600',
  };
  const subgraph = await spawnSubgraph(env, [], ...(entry === undefined ? [] : [entry]));
  return { name, emulator, subgraph };
}

async function main(): Promise<void> {
  const base = process.env.SIDE_BY_SIDE_BASE;
  if (base === undefined || base === '') throw new Error("SIDE_BY_SIDE_BASE: the base build's dist/src/index.js is required");
  const seconds = Number(process.env.SIDE_BY_SIDE_SECONDS ?? 300);
  const urls = articles();
  const builds: [Build, Build] = await Promise.all([startBuild('this build', undefined), startBuild('base', base)]);
  try {
    const live = builds.map((build) => subscribeAll(build, urls));
    const pairs = await newsroomPairs(builds, urls, seconds);
    for (const subscribers of live) subscribers.close();
    process.stdout.write(`\n${report(pairs, [live[0].emissions, live[1].emissions], seconds, base)}`);
    const dump = process.env.SIDE_BY_SIDE_DUMP;
    if (dump !== undefined) writeFileSync(dump, JSON.stringify({ pairs, live: live.map((subscribers) => subscribers.emissions) }, null, 1));
  } finally {
    await Promise.all(builds.flatMap((build) => [build.subgraph.stop(), build.emulator.stop()]));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
