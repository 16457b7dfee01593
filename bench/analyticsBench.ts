import type { EmulatorProcess, SubgraphProcess } from './processes';
import { fmt } from './stats';
import { dashboardQuery, readStats, resetStats, signIn } from './upstreamClient';

/*
 * Article analytics (`Article.analytics`): upstream dashboard calls of one
 * operation, counted by the emulator, and its latency next to the same
 * dashboard queries sent straight to the emulator, interleaved. Every
 * repetition asks over fresh windows, so no answer can come from a cache.
 */

const REPETITIONS = 9;
/** Untimed runs first: the subgraph process is fresh, and its first operations measure the JIT, not the batching. */
const WARM_UP = 3;
const CHUNK_SIZE = 500;

export interface AnalyticsScenario {
  scenario: string;
  expectedCalls: number;
  /** Dashboard calls of each repetition. */
  calls: number[];
  subgraphMs: number;
  directMs: number;
  /** The same operation's entities with `url` only: what GraphQL itself costs, no upstream call. */
  baselineMs: number;
}

async function graphql(subgraph: SubgraphProcess, query: string, variables: Record<string, unknown>): Promise<void> {
  const response = await fetch(subgraph.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown };
  if (response.status !== 200 || body.errors !== undefined) {
    throw new Error(`subgraph answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** The most-read article URLs over 30 days, all domains. */
async function mostReadUrls(baseUrl: string, token: string, limit: number): Promise<string[]> {
  const [result] = await dashboardQuery(baseUrl, token, {
    dates: { last: { number: 30, dimension: 'day' } },
    filters: [],
    groupBy: ['url'],
    metrics: ['pageViewsTotal'],
    order: { metric: 'pageViewsTotal', sort: 'DESC' },
    granularity: 'daily',
    limit,
  });
  return result.actualData.values.map((row) => row.items[0].value);
}

/** The query the subgraph makes for one window and one chunk of URLs, with a relative window. */
function directBody(days: number, urls: readonly string[], metrics: readonly string[]): unknown {
  return {
    dates: { last: { number: days, dimension: 'day' } },
    filters: [{ filter: 'url', op: 'eq', value: [...urls].sort() }],
    groupBy: ['url'],
    metrics,
    order: { metric: metrics[0], sort: 'DESC' },
    granularity: 'daily',
    limit: urls.length,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

interface Repetition {
  subgraph: () => Promise<void>;
  direct: () => Promise<unknown>;
  baseline: () => Promise<void>;
}

/** Subgraph and direct runs interleaved, alternating which goes first; calls counted around the subgraph run only. */
async function measure(
  emulator: EmulatorProcess,
  repetition: (index: number) => Repetition,
): Promise<Omit<AnalyticsScenario, 'scenario' | 'expectedCalls'>> {
  const calls: number[] = [];
  const subgraphMs: number[] = [];
  const directMs: number[] = [];
  const baselineMs: number[] = [];
  for (let index = 0; index < WARM_UP; index++) {
    const { subgraph, direct, baseline } = repetition(REPETITIONS + index);
    await subgraph();
    await direct();
    await baseline();
  }
  for (let index = 0; index < REPETITIONS; index++) {
    const { subgraph, direct, baseline } = repetition(index);
    const runSubgraph = async () => {
      await resetStats(emulator.url);
      subgraphMs.push(await timed(subgraph));
      calls.push((await readStats(emulator.url)).dashboard.count);
    };
    const runDirect = async () => directMs.push(await timed(direct));
    const runBaseline = async () => baselineMs.push(await timed(baseline));
    const order = index % 2 === 0 ? [runSubgraph, runDirect, runBaseline] : [runBaseline, runDirect, runSubgraph];
    for (const run of order) await run();
  }
  return { calls, subgraphMs: median(subgraphMs), directMs: median(directMs), baselineMs: median(baselineMs) };
}

const FRONT_PAGE = `query FrontPage($simple: [_Any!]!, $rich: [_Any!]!, $week: DateWindowInput!, $month: DateWindowInput!) {
  simple: _entities(representations: $simple) {
    ... on Article { week: analytics(window: $week) { pageViews } month: analytics(window: $month) { pageViews } }
  }
  rich: _entities(representations: $rich) {
    ... on Article {
      week: analytics(window: $week) { pageViews uniqueUsers averageScroll }
      month: analytics(window: $month) { pageViews uniqueUsers averageScroll }
    }
  }
}`;

const URLS_ONLY = `query UrlsOnly($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url } } }`;

const BULK = `query Bulk($reps: [_Any!]!, $window: DateWindowInput!) {
  _entities(representations: $reps) { ... on Article { analytics(window: $window) { pageViews } } }
}`;

const lastDays = (number: number) => ({ last: { number, unit: 'DAY' } });
const references = (urls: readonly string[]) => urls.map((url) => ({ __typename: 'Article', url }));

export async function benchAnalytics(emulator: EmulatorProcess, subgraph: SubgraphProcess): Promise<AnalyticsScenario[]> {
  const token = await signIn(emulator.url);
  const urls = await mostReadUrls(emulator.url, token, 1000);
  if (urls.length < 1000) throw new Error(`the emulator has only ${urls.length} articles with traffic; the bench needs 1,000`);
  const direct = (body: unknown) => dashboardQuery(emulator.url, token, body);

  // 200 slots, 150 distinct URLs (the last 50 slots repeat earlier stories); half the slots read pageViews only.
  const slots = Array.from({ length: 200 }, (_, i) => urls[i % 150]);
  const simple = slots.slice(0, 100);
  const rich = slots.slice(100);
  const metrics = ['pageViewsTotal', 'uniqueUsers', 'averageScroll'];
  const frontPage = await measure(emulator, (index) => {
    const [week, month] = [7 + index, 30 + index];
    return {
      subgraph: () =>
        graphql(subgraph, FRONT_PAGE, { simple: references(simple), rich: references(rich), week: lastDays(week), month: lastDays(month) }),
      direct: () =>
        Promise.all([direct(directBody(week, urls.slice(0, 150), metrics)), direct(directBody(month, urls.slice(0, 150), metrics))]),
      baseline: () => graphql(subgraph, URLS_ONLY, { reps: references(slots) }),
    };
  });

  const bulk = await measure(emulator, (index) => {
    const days = 10 + index;
    return {
      subgraph: () => graphql(subgraph, BULK, { reps: references(urls), window: lastDays(days) }),
      direct: () =>
        Promise.all([
          direct(directBody(days, urls.slice(0, CHUNK_SIZE), ['pageViewsTotal'])),
          direct(directBody(days, urls.slice(CHUNK_SIZE), ['pageViewsTotal'])),
        ]),
      baseline: () => graphql(subgraph, URLS_ONLY, { reps: references(urls) }),
    };
  });

  return [
    {
      scenario: 'front page: 200 Article entities, 150 distinct URLs, mixed selections, two aliases with two windows',
      expectedCalls: 2,
      ...frontPage,
    },
    {
      scenario: `1,000 distinct articles in one \`_entities\` batch, one window, chunk ${CHUNK_SIZE}`,
      expectedCalls: Math.ceil(1000 / CHUNK_SIZE),
      ...bulk,
    },
  ];
}

export function analyticsReport(scenarios: readonly AnalyticsScenario[]): string[] {
  return [
    `### Article analytics (${REPETITIONS} repetitions after ${WARM_UP} warm-up runs, fresh windows each, interleaved with the same dashboard queries sent directly)`,
    '',
    '| scenario | dashboard calls (target) | operation p50 | direct queries p50 | ratio | same entities, `url` only, p50 |',
    '|---|---|---|---|---|---|',
    ...scenarios.map(
      (s) =>
        `| ${s.scenario} | ${[...new Set(s.calls)].join(', ')} (${s.expectedCalls}) | ${fmt(s.subgraphMs)} | ${fmt(s.directMs)} | ${(s.subgraphMs / s.directMs).toFixed(2)} | ${fmt(s.baselineMs)} |`,
    ),
    '',
  ];
}
