/**
 * The long tail answered on its first retry (issue 38, item 3), over real
 * HTTP: the subgraph against the emulator's realistic profile with its real
 * budget (one dashboard query a minute, 429 beyond), the governor at the
 * real-host rate, both clocks moved by the test. A 5-row table is full, so an
 * article outside it is an ask outside the table. Tables are fresh for a
 * minute (the real-host default), so from half a minute on every ask of the
 * table asks for its refresh, and a refresh waits at every slot, as in the
 * newsroom. An ask whose deadline comes before the next slot is refused with
 * `retryAfter`; its caller retries at `retryAfter`; the retry must find its
 * numbers, fetched by the one query of the slot the refusal named.
 */
import { DEFAULT_ANALYTICS_CONFIG, type AnalyticsConfig } from '../../src/config';
import { directArticleMetrics, urlsByPageViews } from '../support/analytics';
import { DEFAULT_CACHE_TTLS } from '../support/subgraph';
import { advanceClock, readStats, resetStats } from '../support/subgraphHttp';
import { panel, startTablesOverHttp, weekRanking, type TablesOverHttp } from './support/tablesOverHttp';

jest.setTimeout(30_000);

const MAX_ROWS = 5;
const ANALYTICS: AnalyticsConfig = { ...DEFAULT_ANALYTICS_CONFIG, chunkSize: MAX_ROWS };
/** The real hosts' default: fresh for a minute, so a refresh is asked for from 30 s on. */
const CACHE = { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: 60 };
/** The governor's interval at one a minute: the next slot after a query. */
const SLOT_MS = 63_000;

let tables: TablesOverHttp;

beforeAll(async () => {
  tables = await startTablesOverHttp({ maxRows: MAX_ROWS, cache: CACHE, analytics: ANALYTICS });
});

afterAll(async () => {
  await tables?.close();
});

/** An editor's panel for one article, reading its page views. */
const pageViewsPanel = (url: string) => panel<{ from: string; to: string; pageViews: number }>(tables.graphqlUrl, url, 'pageViews');

it("an ask refused with retryAfter stays demand for the slot it names: its retry at retryAfter is answered, by that slot's one query", async () => {
  const { emulator, recorder, graphqlUrl, token } = tables;
  // The table of the panels' default window (a week), fetched by a ranking: one query, 5 rows, full.
  const top = await weekRanking(graphqlUrl, MAX_ROWS);
  const first = await pageViewsPanel(top[0]);
  const window = first.data?._entities[0]?.analytics;
  if (window == null) throw new Error('no analytics for an article of the table');
  const tail = (await urlsByPageViews(emulator, token, window))[3 * MAX_ROWS];
  expect(tail).toBeDefined();
  await resetStats(emulator);
  recorder.dashboards.length = 0;
  recorder.dashboardStatuses.length = 0;

  // 40 s on, the table is past half its TTL (its refresh waits for the next slot, 23 s away) and the
  // long-tail ask's 20 s deadline comes before that slot: refused at once, with retryAfter.
  await tables.advanceBoth(40_000);
  const refused = await pageViewsPanel(tail);
  expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
  const retryAfter = Number(refused.errors?.[0].extensions?.retryAfter);
  expect(retryAfter).toBeGreaterThanOrEqual((SLOT_MS - 40_000) / 1000);
  expect(recorder.dashboards).toEqual([]);

  // The caller retries at retryAfter: its numbers are there.
  await tables.advanceBoth(retryAfter * 1000);
  const retried = await pageViewsPanel(tail);
  expect(retried.errors).toBeUndefined();
  const analytics = retried.data?._entities[0]?.analytics;
  if (analytics == null) throw new Error('no analytics on the retry');

  // One vendor query answered it: the slot's query, narrowed to the refused ask's url.
  expect(recorder.dashboards).toHaveLength(1);
  const urlFilters = recorder.dashboards[0].filters.filter((filter) => filter.filter === 'url');
  expect(urlFilters.map((filter) => [...filter.value])).toEqual([[tail]]);
  expect(recorder.dashboardStatuses).toEqual([200]);
  expect(await readStats(emulator)).toMatchObject({ dashboard: { count: 1 } });

  // The numbers a direct query for the url returns, over the window the answer reports (after the emulator's slot came back).
  await advanceClock(emulator, SLOT_MS / 1000);
  const direct = await directArticleMetrics(emulator, token, tail, analytics, ['pageViewsTotal']);
  expect(analytics.pageViews).toBe(direct.pageViewsTotal);
  expect(direct.pageViewsTotal).toBeGreaterThan(0);
});
