/**
 * A batch of more than one answer's worth of articles outside the table, over
 * real HTTP against the emulator's realistic profile (at most 500 rows an
 * answer, whatever `limit` says; one dashboard query a minute). The subgraph
 * runs with the defaults: REPORTING_MAX_ROWS = ANALYTICS_CHUNK_SIZE = 500.
 *
 * Issue 29 item 8: 600 articles outside the week's table went out as ONE
 * query with 600 urls (`limit: 600`); the vendor answered 500 rows and the
 * 100 articles it left out were reported (and cached) as 0 page views. Each
 * query must carry at most a chunk of urls, and an article no answer spoke
 * for is unknown: its field gets an error (here the budget's refusal, with
 * retryAfter), never a 0.
 */
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/config';
import type { DashboardMetricResultWire, DashboardQueryBody } from '../../src/kernel/wire';
import { articleRepresentations, EMULATOR_SLOT_SECONDS } from '../support/analytics';
import { call } from '../support/emulator';
import { postGraphQL } from '../support/federationGateway';
import { DEFAULT_CACHE_TTLS } from '../support/subgraph';
import { advanceClock } from '../support/subgraphHttp';
import { startTablesOverHttp, type TablesOverHttp } from './support/tablesOverHttp';

jest.setTimeout(60_000);

const MAX_ROWS = DEFAULT_ANALYTICS_CONFIG.chunkSize;
const CACHE = { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: 300 };
/** Past the week's first 500 articles (the table), this many more: more than one answer carries. */
const COLD_ARTICLES = 600;

let tables: TablesOverHttp;

beforeAll(async () => {
  tables = await startTablesOverHttp({ maxRows: MAX_ROWS, cache: CACHE, analytics: DEFAULT_ANALYTICS_CONFIG, emulatorScale: 1 });
});

afterAll(async () => {
  await tables?.close();
});

/** The page views of every article of a window with any, most read first, straight from the emulator (paged by 500). */
async function pageViewsByUrl(
  emulator: RunningEmulator,
  token: string,
  window: { from: string; to: string },
): Promise<Map<string, number>> {
  const views = new Map<string, number>();
  for (let from = 0; ; from += 500) {
    const body: DashboardQueryBody = {
      dates: { range: { start: window.from, end: window.to } },
      filters: [],
      groupBy: ['url'],
      metrics: ['pageViewsTotal'],
      order: { metric: 'pageViewsTotal', sort: 'DESC' },
      limit: 500,
      from,
    };
    await advanceClock(emulator, EMULATOR_SLOT_SECONDS);
    const response = await call<DashboardMetricResultWire[]>(emulator, '/api/dashboard/query', { body, token });
    if (response.status !== 200) throw new Error(`direct dashboard query answered ${response.status}`);
    const rows = response.body[0].actualData.values;
    for (const row of rows) views.set(String(row.items[0].value), row.total);
    if (rows.length < 500) return views;
  }
}

interface EntitiesResult {
  data?: { _entities: ({ analytics: { pageViews: number | null; from: string; to: string } | null } | null)[] } | null;
  errors?: { path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

it('a batch of 600 articles outside the table goes out in chunks of at most 500 urls, and no article an answer left out is reported as 0', async () => {
  const { emulator, recorder, graphqlUrl, token } = tables;
  // The week's table: one query, 500 rows, full.
  const ranking = await postGraphQL<{ topArticles: { article: { url: string } }[] }>(
    graphqlUrl,
    `{ topArticles(window: { last: { number: 7, unit: DAY } }, limit: 1) { article { url } } }`,
  );
  expect(ranking.errors).toBeUndefined();
  expect(recorder.dashboards).toHaveLength(1);
  const window = (await postGraphQL<EntitiesResult['data']>(
    graphqlUrl,
    `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { from to pageViews } } } }`,
    { reps: articleRepresentations([ranking.data?.topArticles[0]?.article.url ?? '']) },
  )) as EntitiesResult;
  const analytics = window.data?._entities[0]?.analytics;
  if (analytics == null) throw new Error('no analytics for the top article');

  const views = await pageViewsByUrl(emulator, token, analytics);
  const cold = [...views.keys()].slice(MAX_ROWS, MAX_ROWS + COLD_ARTICLES);
  expect(cold.length).toBeGreaterThan(MAX_ROWS);
  recorder.dashboards.length = 0;

  // A slot is free again; the batch asks for all of them in one operation.
  await tables.advanceBoth(EMULATOR_SLOT_SECONDS * 1000);
  const result = (await postGraphQL<EntitiesResult['data']>(
    graphqlUrl,
    `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { from to pageViews } } } }`,
    { reps: articleRepresentations(cold) },
  )) as EntitiesResult;

  // Every query the vendor saw carried at most a chunk of urls and asked for no more rows than one answer holds.
  expect(recorder.dashboards.length).toBeGreaterThan(0);
  for (const body of recorder.dashboards) {
    const urlFilter = body.filters.find((filter) => filter.filter === 'url');
    expect(urlFilter?.value.length ?? 0).toBeLessThanOrEqual(DEFAULT_ANALYTICS_CONFIG.chunkSize);
    expect(body.limit ?? 0).toBeLessThanOrEqual(MAX_ROWS);
  }
  // Each article: its page views, or an error on its field (the next slot is a minute away), never a 0.
  const erroredIndexes = new Set((result.errors ?? []).map((error) => error.path?.[1]));
  const codes = new Set((result.errors ?? []).map((error) => error.extensions?.code));
  expect([...codes].filter((code) => code !== 'UPSTREAM_RATE_LIMITED')).toEqual([]);
  const wrong: string[] = [];
  let answered = 0;
  for (const [index, url] of cold.entries()) {
    const pageViews = result.data?._entities[index]?.analytics?.pageViews;
    if (erroredIndexes.has(index)) continue;
    answered += 1;
    // The direct query ran at another instant of the emulator's clock, so a number may differ by the views since; a 0 for an article with views cannot.
    if (pageViews == null || pageViews <= 0) wrong.push(`${url}: ${pageViews} (direct: ${views.get(url)})`);
  }
  expect(wrong).toEqual([]);
  expect(answered).toBeGreaterThanOrEqual(MAX_ROWS);
  for (const error of result.errors ?? []) expect(error.extensions?.retryAfter).toBeGreaterThan(0);
});
