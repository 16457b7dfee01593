/**
 * Refresh by demand over real HTTP: the subgraph against the emulator's
 * realistic profile with its real budget (one dashboard query a minute, 429
 * beyond) and the subgraph's governor at the real-host rate, on an injected
 * clock moved together with the emulator's (test/reporting/support/tablesOverHttp.ts).
 * Two tables past half their TTL wait for the next slot together. Every
 * table in demand gets its turn (issue 35, item 2): with two tables at one
 * query a minute, each must be refreshed within ⌈2 / 1⌉ + 1 = 3 minutes, so
 * the older one goes first although the other is asked for more (giving the
 * more demanded one this slot too would leave the older one unrefreshed past
 * that bound); the more demanded one at the next slot. Meanwhile each is
 * served, stale if it must be, with its fetchedAt. One query per slot, no 429.
 * Demand decides the order where the bound leaves room: test/reporting/budgetQueue.turns.test.ts
 * and analyticsTables.test.ts.
 */
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/config';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { articleRepresentations } from '../support/analytics';
import { postGraphQL } from '../support/federationGateway';
import { DEFAULT_CACHE_TTLS } from '../support/subgraph';
import { readStats } from '../support/subgraphHttp';
import { startTablesOverHttp, type TablesOverHttp } from './support/tablesOverHttp';

jest.setTimeout(30_000);

/** Tables fresh for 100 s: refreshed by demand from 50 s on, stale from 100 s. */
const CACHE = { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: 100 };
/** The governor's interval at one a minute: the next slot after a query. */
const SLOT_MS = 63_000;
const DAY_MS = 86_400_000;

let tables: TablesOverHttp;

beforeAll(async () => {
  tables = await startTablesOverHttp({ maxRows: 5, cache: CACHE, analytics: DEFAULT_ANALYTICS_CONFIG });
});

afterAll(async () => {
  await tables?.close();
});

/** A body's window in days: 7 for the panels' table, 1 for the day's ranking. */
function days(body: DashboardQueryBody): number {
  return 'range' in body.dates ? Math.round((Date.parse(body.dates.range.end) - Date.parse(body.dates.range.start)) / DAY_MS) : 0;
}

async function dayRanking(): Promise<{ fetchedAt: string }> {
  const result = await postGraphQL<{ topArticles: { fetchedAt: string }[] }>(
    tables.graphqlUrl,
    `{ topArticles(window: { last: { number: 1, unit: DAY } }, limit: 3) { fetchedAt } }`,
  );
  expect(result.errors).toBeUndefined();
  const first = result.data?.topArticles[0];
  if (first === undefined) throw new Error('an empty ranking');
  return first;
}

async function weekPanel(url: string): Promise<{ fetchedAt: string }> {
  const result = await postGraphQL<{ _entities: { analytics: { fetchedAt: string } }[] }>(
    tables.graphqlUrl,
    `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews fetchedAt } } } }`,
    { reps: articleRepresentations([url]) },
  );
  expect(result.errors).toBeUndefined();
  const analytics = result.data?._entities[0]?.analytics;
  if (analytics === undefined) throw new Error('no analytics');
  return analytics;
}

it('refreshes the older table first when the more demanded one would leave it past its bound, the other at the next unit: one query a unit, no 429', async () => {
  const { recorder, clock } = tables;
  const start = clock.now();
  // Slot 1: the week's table (the panels' default window), through a ranking of it.
  const top = await postGraphQL<{ topArticles: { article: { url: string } }[] }>(
    tables.graphqlUrl,
    `{ topArticles(window: { last: { number: 7, unit: DAY } }, limit: 3) { article { url } } }`,
  );
  const url = top.data?.topArticles[0]?.article.url ?? '';
  // Slot 2: the day's table.
  await tables.advanceBoth(SLOT_MS);
  const dayFetchedAt = (await dayRanking()).fetchedAt;
  expect(recorder.dashboards.map(days)).toEqual([7, 1]);

  // 115 s in: the week's table is past its TTL (stale), the day's past half of it; the next slot is 11 s away.
  await tables.advanceBoth(115_000 - SLOT_MS);
  const stale = await weekPanel(url); // asked for once
  expect(Date.parse(stale.fetchedAt)).toBe(start);
  for (let ask = 0; ask < 3; ask += 1) expect((await dayRanking()).fetchedAt).toBe(dayFetchedAt); // asked for more
  expect(recorder.dashboards).toHaveLength(2);

  // Slot 3 (126 s): the week's table, the older; the day's at 189 s would leave it 189 s old, past the 180 s bound.
  await tables.advanceBoth(12_000);
  await tables.tablesStored(3);
  expect(recorder.dashboards.map(days)).toEqual([7, 1, 7]);
  const weekRefreshed = Date.parse((await weekPanel(url)).fetchedAt);
  expect(weekRefreshed).toBeGreaterThanOrEqual(start + 2 * SLOT_MS);
  // Meanwhile the day's ranking is still answered from its table, with its fetchedAt.
  expect((await dayRanking()).fetchedAt).toBe(dayFetchedAt);

  // Slot 4 (189 s): the day's table, at 126 s old, within its bound.
  await tables.advanceBoth(SLOT_MS);
  await tables.tablesStored(4);
  expect(recorder.dashboards.map(days)).toEqual([7, 1, 7, 1]);
  // Fetched at the fourth slot (the governor's retryAfter is whole seconds, so up to a second after it).
  const refreshed = Date.parse((await dayRanking()).fetchedAt);
  expect(refreshed).toBeGreaterThanOrEqual(start + 3 * SLOT_MS);
  expect(refreshed).toBeLessThanOrEqual(clock.now());

  expect(recorder.dashboardStatuses).toEqual([200, 200, 200, 200]);
  expect((await readStats(tables.emulator)).dashboard.count).toBe(4);
});
