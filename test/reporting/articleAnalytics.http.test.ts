/**
 * Article analytics from tables over real HTTP: `_entities` batches and
 * `topArticles` against the subgraph, the emulator in its realistic profile
 * (500 rows a page, ad and revenue metrics outside the plan) as the upstream.
 * Asserts the numbers (each article's equal a direct dashboard query over the
 * table's reported window) and the shape of the upstream work: how many
 * dashboard queries, with which bodies (one grouped query answers every ask).
 */
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/config';
import { apiToken } from '../support/emulator';
import { articleRepresentations, directArticleMetrics, startRecordingSubgraph, type RecordingSubgraph } from '../support/analytics';
import { postGraphQL } from '../support/federationGateway';
import { readStats, resetStats, startSmallEmulator } from '../support/subgraphHttp';

const DAY_MS = 86_400_000;
const TABLE_METRICS = ['pageViewsTotal', 'uniqueUsers', 'averageDurationPerPage', 'averageScroll'];

let emulator: RunningEmulator;
let subgraph: RecordingSubgraph;
let token: string;

beforeAll(async () => {
  // The realistic plan and page size; a budget that lets the test ask within one emulator minute.
  emulator = await startSmallEmulator({ profile: 'realistic', rates: { reportingPerMinute: 600 } });
  subgraph = await startRecordingSubgraph(emulator, DEFAULT_ANALYTICS_CONFIG);
  token = await apiToken(emulator);
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

beforeEach(async () => {
  subgraph.bodies.length = 0;
  await resetStats(emulator);
});

const NEVER_PUBLISHED = 'https://dailyglobe.example/never/published';

interface Analytics {
  from: string;
  to: string;
  pageViews?: number;
  uniqueUsers?: number;
  averageScroll?: number;
  fetchedAt?: string;
}

interface EntitiesData {
  _entities: ({ url: string; [alias: string]: Analytics | string | null } | null)[];
}

const ENTITIES = `query ($reps: [_Any!]!) {
  _entities(representations: $reps) {
    ... on Article {
      url
      week: analytics { from to pageViews fetchedAt }
      weekMore: analytics { from to uniqueUsers averageScroll }
      month: analytics(window: { last: { number: 30, unit: DAY } }) { from to pageViews fetchedAt }
    }
  }
}`;

function analyticsOf(entity: EntitiesData['_entities'][number], alias: string): Analytics {
  const value = entity?.[alias];
  if (value === null || value === undefined || typeof value === 'string') throw new Error(`no ${alias} analytics on ${entity?.url}`);
  return value;
}

describe('Article.analytics from tables', () => {
  it('answers a batch with one grouped query per window (every plan metric, 500 rows), each article equal to a direct query', async () => {
    const known = emulator.store.articles.slice(0, 5).map((article) => article.url);
    expect(emulator.store.articles.length).toBeLessThan(500); // so the table is complete: a missing article had no views
    const result = await postGraphQL<EntitiesData>(subgraph.graphqlUrl, ENTITIES, {
      reps: articleRepresentations([...known, NEVER_PUBLISHED]),
    });

    expect(result.errors).toBeUndefined();
    expect(subgraph.bodies.map((body) => ({ ...body, dates: 'range' in body.dates ? 'range' : 'last' }))).toEqual(
      [7, 30].map(() => ({
        dates: 'range',
        filters: [],
        groupBy: ['url'],
        metrics: TABLE_METRICS,
        order: { metric: 'pageViewsTotal', sort: 'DESC' },
        granularity: 'daily',
        limit: 500,
      })),
    );
    expect((await readStats(emulator)).dashboard.count).toBe(2);
    const entities = result.data?._entities ?? [];
    const week = analyticsOf(entities[0], 'week');
    expect(Date.parse(week.to) - Date.parse(week.from)).toBe(7 * DAY_MS);
    for (const [index, url] of known.entries()) {
      const direct = await directArticleMetrics(emulator, token, url, week, ['pageViewsTotal', 'uniqueUsers', 'averageScroll']);
      expect(analyticsOf(entities[index], 'week').pageViews).toBe(direct.pageViewsTotal);
      expect(analyticsOf(entities[index], 'weekMore')).toMatchObject({
        uniqueUsers: direct.uniqueUsers,
        averageScroll: direct.averageScroll,
      });
    }
    expect(analyticsOf(entities[5], 'week').pageViews).toBe(0);
    expect(analyticsOf(entities[5], 'month').pageViews).toBe(0);
  });

  it('serves the next operation from the table: no query, and the table window and fetchedAt, not the ask instant', async () => {
    const first = await postGraphQL<EntitiesData>(subgraph.graphqlUrl, ENTITIES, {
      reps: articleRepresentations([emulator.store.articles[0].url]),
    });
    subgraph.bodies.length = 0;
    const other = emulator.store.articles.slice(6, 9).map((article) => article.url);
    const second = await postGraphQL<EntitiesData>(subgraph.graphqlUrl, ENTITIES, { reps: articleRepresentations(other) });

    expect(second.errors).toBeUndefined();
    expect(subgraph.bodies).toEqual([]);
    const before = analyticsOf(first.data?._entities[0] ?? null, 'week');
    for (const entity of second.data?._entities ?? []) {
      expect(analyticsOf(entity, 'week')).toMatchObject({ from: before.from, to: before.to, fetchedAt: before.fetchedAt });
    }
  });

  it('learns a metric outside the plan once: UPSTREAM_METRIC_UNAVAILABLE at its path, the other fields keep their numbers, never asked for again', async () => {
    // The week's most read article (from the week's table, no query): the demo data's oldest article may have no views this week.
    const top = await postGraphQL<{ topArticles: { article: { url: string } }[] }>(
      subgraph.graphqlUrl,
      `{ topArticles(window: { last: { number: 7, unit: DAY } }, limit: 1) { article { url } } }`,
    );
    const url = top.data?.topArticles[0]?.article.url ?? '';
    const query = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews revenue metric(metric: REVENUE_TOTAL) } } } }`;
    const first = await postGraphQL<{ _entities: { analytics: { pageViews: number; revenue: number | null; metric: number | null } }[] }>(
      subgraph.graphqlUrl,
      query,
      { reps: articleRepresentations([url]) },
    );
    expect(first.errors?.map((error) => [error.extensions?.code, error.path])).toEqual([
      ['UPSTREAM_METRIC_UNAVAILABLE', ['_entities', 0, 'analytics', 'revenue']],
      ['UPSTREAM_METRIC_UNAVAILABLE', ['_entities', 0, 'analytics', 'metric']],
    ]);
    const analytics = first.data?._entities[0].analytics;
    expect(analytics).toMatchObject({ revenue: null, metric: null });
    expect(analytics?.pageViews).toBeGreaterThan(0);
    const learnt = subgraph.bodies.filter((body) => body.metrics.includes('revenueTotal'));
    expect(learnt).toHaveLength(1);

    subgraph.bodies.length = 0;
    const second = await postGraphQL<{ _entities: { analytics: { pageViews: number } }[] }>(subgraph.graphqlUrl, query, {
      reps: articleRepresentations([url]),
    });
    expect(second.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_METRIC_UNAVAILABLE', 'UPSTREAM_METRIC_UNAVAILABLE']);
    expect(second.data?._entities[0].analytics.pageViews).toBe(analytics?.pageViews);
    expect(subgraph.bodies).toEqual([]);
  });

  it('rejects a bad window before any upstream call, naming the argument', async () => {
    const result = await postGraphQL(
      subgraph.graphqlUrl,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics(window: { last: { number: 0, unit: DAY } }) { pageViews } } } }`,
      { reps: articleRepresentations([emulator.store.articles[0].url]) },
    );
    expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0].message).toContain('window.last.number');
    expect(subgraph.bodies).toEqual([]);
  });
});

describe('topArticles from tables', () => {
  it('reads the first rows of the table of its window and metric: one query for a ranking and every article panel of that window', async () => {
    const query = `{ topArticles(window: { last: { number: 2, unit: DAY } }, limit: 3) { rank value article { url } from to fetchedAt } }`;
    type Row = { rank: number; value: number; article: { url: string }; from: string; to: string; fetchedAt: string };
    const ranking = await postGraphQL<{ topArticles: Row[] }>(subgraph.graphqlUrl, query);
    expect(ranking.errors).toBeUndefined();
    expect(subgraph.bodies).toHaveLength(1);
    expect(subgraph.bodies[0]).toMatchObject({ groupBy: ['url'], metrics: TABLE_METRICS, limit: 500, filters: [] });
    const rows = ranking.data?.topArticles ?? [];
    expect(rows.map((row) => row.rank)).toEqual([1, 2, 3]);
    expect([...rows.map((row) => row.value)].sort((a, b) => b - a)).toEqual(rows.map((row) => row.value));

    const panels = await postGraphQL<EntitiesData>(
      subgraph.graphqlUrl,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url analytics(window: { last: { number: 2, unit: DAY } }) { from to pageViews fetchedAt } } } }`,
      { reps: articleRepresentations(rows.map((row) => row.article.url)) },
    );
    expect(panels.errors).toBeUndefined();
    expect(panels.data?._entities.map((entity) => analyticsOf(entity, 'analytics').pageViews)).toEqual(rows.map((row) => row.value));
    expect(subgraph.bodies).toHaveLength(1);
    // Honest windows: every row of the ranking and every panel report the one table's window and fetch instant.
    const range = 'range' in subgraph.bodies[0].dates ? subgraph.bodies[0].dates.range : undefined;
    const table = { from: range?.start, to: range?.end, fetchedAt: analyticsOf(panels.data?._entities[0] ?? null, 'analytics').fetchedAt };
    for (const row of rows) expect({ from: row.from, to: row.to, fetchedAt: row.fetchedAt }).toEqual(table);
    for (const entity of panels.data?._entities ?? []) expect(analyticsOf(entity, 'analytics')).toMatchObject(table);
  });

  it('filters its table by domain and section', async () => {
    const { domain, sections } = emulator.store.articles[0];
    const section = sections[0];
    const result = await postGraphQL<{ topArticles: { value: number }[] }>(
      subgraph.graphqlUrl,
      `{ topArticles(domain: "${domain}", section: "${section}", metric: UNIQUE_USERS, limit: 2) { rank value } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(subgraph.bodies.map((body) => ({ filters: body.filters, order: body.order }))).toEqual([
      {
        filters: [
          { filter: 'domain', op: 'eq', value: [domain] },
          { filter: 'section', op: 'eq', value: [section] },
        ],
        order: { metric: 'uniqueUsers', sort: 'DESC' },
      },
    ]);
  });
});
