/**
 * Cold asks merged at the next slot, over real HTTP: the subgraph against the
 * emulator's realistic profile with its real budget (one dashboard query a
 * minute, 429 beyond) and the subgraph's governor at the real-host rate (one
 * a minute). A table of 5 rows (REPORTING_MAX_ROWS=5) is full, so articles
 * outside it are cold asks. Several operations asking for different long-tail
 * articles, with different metric selections, wait for the next slot, which
 * sends ONE query: a url filter carrying the union of their urls, and the
 * union of their metrics. Every dashboard body that reaches the emulator is
 * recorded by a proxy in front of it. Both clocks move when the test says:
 * the subgraph's (tables, deadlines, governor) is injected, the emulator's is
 * advanced through its control API by the same amounts.
 */
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, type AnalyticsConfig } from '../../src/config';
import type { MetricName } from '../../src/kernel/wire';
import { directArticleMetrics, urlsByPageViews } from '../support/analytics';
import type { BodyRecorder } from '../support/bodyRecorder';
import { DEFAULT_CACHE_TTLS } from '../support/subgraph';
import { advanceClock, readStats, resetStats } from '../support/subgraphHttp';
import { panel as panelOver, startTablesOverHttp, weekRanking, type PanelResult, type TablesOverHttp } from './support/tablesOverHttp';

jest.setTimeout(30_000);

const MAX_ROWS = 5;
const TABLE_METRICS: MetricName[] = ['pageViewsTotal', 'uniqueUsers', 'averageDurationPerPage', 'averageScroll'];
const ANALYTICS: AnalyticsConfig = { ...DEFAULT_ANALYTICS_CONFIG, chunkSize: MAX_ROWS };
/**
 * Tables fresh for 5 minutes: the test's 65 s stay under half of it, so no refresh by demand competes
 * with the cold asks for the slot (the cold share is tested on an injected clock in analyticsTables.test.ts).
 */
const CACHE = { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: 300 };
/** The governor's interval at one a minute (RATE_WINDOW_MS): the next slot after a query. */
const SLOT_MS = 63_000;

let tables: TablesOverHttp;
let emulator: RunningEmulator;
let recorder: BodyRecorder;
let graphqlUrl: string;
let token: string;

beforeAll(async () => {
  tables = await startTablesOverHttp({ maxRows: MAX_ROWS, cache: CACHE, analytics: ANALYTICS });
  ({ emulator, recorder, graphqlUrl, token } = tables);
});

afterAll(async () => {
  await tables?.close();
});

interface Analytics {
  from: string;
  to: string;
  fetchedAt: string;
  pageViews?: number;
  uniqueUsers?: number;
  averageScroll?: number;
  totalDuration?: number;
  pageViewsPerUser?: number;
}

type EntitiesResult = PanelResult<Analytics>;

/** One editor's panel: `_entities` for one article, as a router sends it. */
function panel(url: string, selection: string): Promise<EntitiesResult> {
  return panelOver<Analytics>(graphqlUrl, url, selection);
}

function analyticsOf(result: EntitiesResult): Analytics {
  expect(result.errors).toBeUndefined();
  const analytics = result.data?._entities[0]?.analytics;
  if (analytics == null) throw new Error('no analytics');
  return analytics;
}

/** The direct query for one url, after the emulator's slot came back (not counted: the stats are read before). */
async function direct(url: string, window: { from: string; to: string }, metrics: MetricName[]): Promise<Record<string, number>> {
  await advanceClock(emulator, SLOT_MS / 1000);
  return directArticleMetrics(emulator, token, url, window, metrics);
}

it('merges concurrent cold asks into ONE query at the next slot (union of urls and metrics); an ask past its deadline is refused with retryAfter', async () => {
  // (1) The table of the panels' default window (a week), fetched by a ranking of it: one query, 5 rows, so full.
  const top = await weekRanking(graphqlUrl, MAX_ROWS);
  expect(recorder.dashboards).toHaveLength(1);
  expect(recorder.dashboards[0]).toMatchObject({ groupBy: ['url'], filters: [], metrics: TABLE_METRICS, limit: MAX_ROWS });
  // A panel for an article of the table is answered from it (no query); it tells the table's window.
  const first = analyticsOf(await panel(top[0], 'pageViews'));
  expect(recorder.dashboards).toHaveLength(1);

  const ranked = await urlsByPageViews(emulator, token, first);
  expect(ranked.length).toBeGreaterThan(3 * MAX_ROWS);
  const [a, b, c, late] = ranked.slice(2 * MAX_ROWS, 2 * MAX_ROWS + 4);
  await resetStats(emulator);
  recorder.dashboards.length = 0;

  // (2) The slot is spent: 50 s later the next one is 13 s away, within the asks' 20 s deadline.
  await tables.advanceBoth(50_000);
  const selections: [string, string, MetricName[]][] = [
    [a, 'pageViews', ['pageViewsTotal']],
    [b, 'uniqueUsers totalDuration: metric(metric: TOTAL_DURATION)', ['uniqueUsers', 'totalDuration']],
    [c, 'averageScroll pageViewsPerUser: metric(metric: PAGE_VIEWS_PER_USER)', ['averageScroll', 'pageViewsPerUser']],
  ];
  const answers = Promise.all(selections.map(([url, selection]) => panel(url, selection)));
  await tables.asksWaiting(selections.length);
  expect(recorder.dashboards).toEqual([]);

  // The next unit: one query answers the three operations.
  await tables.advanceBoth(SLOT_MS - 50_000 + 2_000);
  const results = await answers;
  expect(recorder.dashboards).toHaveLength(1);
  const merged = recorder.dashboards[0];
  const urlFilters = merged.filters.filter((filter) => filter.filter === 'url');
  expect(urlFilters).toHaveLength(1);
  expect(urlFilters[0].op).toBe('eq');
  expect([...urlFilters[0].value].sort()).toEqual([a, b, c].sort());
  const asked = selections.flatMap(([, , metrics]) => metrics);
  expect(new Set(merged.metrics)).toEqual(new Set([...TABLE_METRICS, ...asked]));
  expect(merged).toMatchObject({ groupBy: ['url'], limit: 3 });
  // Honest windows: each answer reports the window the merged query was over (resolved at its slot), not the ask's.
  const range = 'range' in merged.dates ? merged.dates.range : undefined;
  for (const result of results) expect(analyticsOf(result)).toMatchObject({ from: range?.start, to: range?.end });
  expect(await readStats(emulator)).toMatchObject({ dashboard: { count: 1 } });

  // (3) Past its deadline: the next slot is a minute away, the ask gets UPSTREAM_RATE_LIMITED with retryAfter at once.
  const refused = await panel(late, 'pageViews');
  expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
  expect(refused.errors?.[0].extensions?.retryAfter).toBeGreaterThan(ANALYTICS.askDeadlineMs / 1000);
  expect(recorder.dashboards).toHaveLength(1);

  // Each operation got the numbers a direct query for its url returns, over the window its answer reports.
  for (const [index, [url, , metrics]] of selections.entries()) {
    const analytics = analyticsOf(results[index]);
    const numbers = await direct(url, analytics, metrics);
    const byField: Record<MetricName, keyof Analytics> = {
      pageViewsTotal: 'pageViews',
      uniqueUsers: 'uniqueUsers',
      averageScroll: 'averageScroll',
      totalDuration: 'totalDuration',
      pageViewsPerUser: 'pageViewsPerUser',
    } as Record<MetricName, keyof Analytics>;
    for (const metric of metrics) expect(analytics[byField[metric]]).toBe(numbers[metric]);
    expect(numbers[metrics[0]]).toBeGreaterThan(0);
  }
});
