/**
 * Article analytics over real HTTP: `_entities` batches against the subgraph,
 * the emulator as the upstream. Asserts the numbers (each article's equal a
 * direct dashboard query filtered to its url over the reported window) and
 * the shape of the upstream work (how many dashboard calls, with which bodies).
 */
import type { RunningEmulator } from '../../emulator';
import { apiToken } from '../support/emulator';
import { articleRepresentations, directArticleMetrics, startRecordingSubgraph, type RecordingSubgraph } from '../support/analytics';
import { postGraphQL } from '../support/federationGateway';
import { addFault, clearFaults, readStats, resetStats, startSmallEmulator } from '../support/subgraphHttp';

const CHUNK_SIZE = 4;
const DAY_MS = 86_400_000;

let emulator: RunningEmulator;
let subgraph: RecordingSubgraph;
let token: string;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  // No alignment: each operation pins its own instant, so no two operations here ask the same question.
  subgraph = await startRecordingSubgraph(emulator, { chunkSize: CHUNK_SIZE, windowAlignSeconds: 0 });
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

afterEach(async () => {
  await clearFaults(emulator);
});

/** The most-read urls of the emulator first (so numbers are not all 0), then one it never saw. */
function urls(count: number): string[] {
  const known = emulator.store.articles.slice(0, count - 1).map((article) => article.url);
  return [...known, 'https://dailyglobe.example/never/published'];
}

interface Analytics {
  from: string;
  to: string;
  pageViews?: number;
  uniqueUsers?: number;
  averageScroll?: number;
  revenue?: number;
  fetchedAt?: string;
}

interface EntitiesData {
  _entities: ({ url: string; [alias: string]: Analytics | string | null } | null)[];
}

const ENTITIES = `query ($reps: [_Any!]!, $metric: Metric!) {
  _entities(representations: $reps) {
    ... on Article {
      url
      week: analytics { from to pageViews }
      weekMore: analytics { from to uniqueUsers averageScroll }
      month: analytics(window: { last: { number: 30, unit: DAY } }) { from to pageViews revenue: metric(metric: $metric) fetchedAt }
    }
  }
}`;

function analyticsOf(entity: EntitiesData['_entities'][number], alias: string): Analytics {
  const value = entity?.[alias];
  if (value === null || value === undefined || typeof value === 'string') throw new Error(`no ${alias} analytics on ${entity?.url}`);
  return value;
}

describe('Article.analytics in an _entities batch', () => {
  it('makes one dashboard query per window, with the union of the selected metrics, and equals direct queries', async () => {
    const batch = urls(4);
    // A router may send the same article twice; it must not cost anything extra.
    const reps = articleRepresentations([...batch, batch[0]]);
    const response = await postGraphQL<EntitiesData>(subgraph.graphqlUrl, ENTITIES, { reps, metric: 'REVENUE_TOTAL' });

    expect(response.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(2);
    const metricsSent = subgraph.bodies.map((body) => body.metrics);
    expect(metricsSent).toEqual(
      expect.arrayContaining([
        ['pageViewsTotal', 'uniqueUsers', 'averageScroll'],
        ['pageViewsTotal', 'revenueTotal'],
      ]),
    );
    for (const body of subgraph.bodies) {
      expect(body.groupBy).toEqual(['url']);
      expect(body.filters).toEqual([{ filter: 'url', op: 'eq', value: [...batch].sort() }]);
      expect(body.limit).toBe(batch.length);
    }

    const entities = response.data?._entities ?? [];
    expect(entities).toHaveLength(batch.length + 1);
    for (const entity of entities) {
      const url = entity?.url ?? '';
      const week = analyticsOf(entity, 'week');
      const weekMore = analyticsOf(entity, 'weekMore');
      const month = analyticsOf(entity, 'month');
      const direct7 = await directArticleMetrics(emulator, token, url, week, ['pageViewsTotal', 'uniqueUsers', 'averageScroll']);
      const direct30 = await directArticleMetrics(emulator, token, url, month, ['pageViewsTotal', 'revenueTotal']);
      expect(week.pageViews).toBe(direct7.pageViewsTotal);
      expect(weekMore).toMatchObject({ uniqueUsers: direct7.uniqueUsers, averageScroll: direct7.averageScroll });
      expect(month).toMatchObject({ pageViews: direct30.pageViewsTotal, revenue: direct30.revenueTotal });
    }
    // The unknown article is 0 everywhere, not an error.
    expect(analyticsOf(entities[batch.length - 1], 'month')).toMatchObject({ pageViews: 0, revenue: 0 });
    expect(entities.some((entity) => (analyticsOf(entity, 'month').pageViews ?? 0) > 0)).toBe(true);
  });

  it('pins relative windows to one instant per operation and reports it in from/to', async () => {
    const before = Date.now();
    const response = await postGraphQL<EntitiesData>(subgraph.graphqlUrl, ENTITIES, {
      reps: articleRepresentations(urls(3)),
      metric: 'PAGE_VIEWS_TOTAL',
    });
    const after = Date.now();

    const entities = response.data?._entities ?? [];
    const weeks = new Set(
      entities.map((entity) => JSON.stringify([analyticsOf(entity, 'week'), analyticsOf(entity, 'weekMore')].map((a) => [a.from, a.to]))),
    );
    expect(weeks.size).toBe(1);
    const month = analyticsOf(entities[0], 'month');
    const week = analyticsOf(entities[0], 'week');
    expect(month.to).toBe(week.to);
    expect(Date.parse(week.to)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(week.to)).toBeLessThanOrEqual(after);
    expect(Date.parse(week.to) - Date.parse(week.from)).toBe(7 * DAY_MS);
    expect(Date.parse(month.to) - Date.parse(month.from)).toBe(30 * DAY_MS);
    expect(subgraph.bodies.map((body) => body.dates)).toContainEqual({ range: { start: week.from, end: week.to } });
  });

  it('asks only for the selected metric when an operation reads pageViews only', async () => {
    const query = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews } } } }`;
    const response = await postGraphQL(subgraph.graphqlUrl, query, { reps: articleRepresentations(urls(3)) });

    expect(response.errors).toBeUndefined();
    expect(subgraph.bodies.map((body) => body.metrics)).toEqual([['pageViewsTotal']]);
    expect((await readStats(emulator)).dashboard.count).toBe(1);
  });

  it('splits a window into ceil(urls / ANALYTICS_CHUNK_SIZE) queries and still gives each article its own numbers', async () => {
    const batch = urls(CHUNK_SIZE * 2 + 2);
    const query = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url analytics { from to pageViews } } } }`;
    const response = await postGraphQL<{ _entities: { url: string; analytics: Analytics }[] }>(subgraph.graphqlUrl, query, {
      reps: articleRepresentations(batch),
    });

    expect(response.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(Math.ceil(batch.length / CHUNK_SIZE));
    expect(subgraph.bodies.map((body) => body.filters[0].value.length)).toEqual([CHUNK_SIZE, CHUNK_SIZE, 2]);
    for (const { url, analytics } of response.data?._entities ?? []) {
      expect(analytics.pageViews).toBe((await directArticleMetrics(emulator, token, url, analytics, ['pageViewsTotal'])).pageViewsTotal);
    }
  });

  it('accepts NEW_ARTICLES through metric(metric:)', async () => {
    const query = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics(window: { last: { number: 30, unit: DAY } }) { metric(metric: NEW_ARTICLES) } } } }`;
    const response = await postGraphQL<{ _entities: { analytics: { metric: number } }[] }>(subgraph.graphqlUrl, query, {
      reps: articleRepresentations(urls(2)),
    });

    expect(response.errors).toBeUndefined();
    expect(subgraph.bodies.map((body) => body.metrics)).toEqual([['newArticles']]);
    expect(response.data?._entities.map((entity) => entity.analytics.metric).every((value) => value === 0 || value === 1)).toBe(true);
  });

  it('rejects a bad window before any upstream call, naming the argument', async () => {
    const query = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url
      bad: analytics(window: { range: { start: "2026-11-20", end: "2026-11-01" } }) { pageViews }
      zero: analytics(window: { last: { number: 0, unit: DAY } }) { pageViews } } } }`;
    const response = await postGraphQL<{ _entities: { url: string; bad: null; zero: null }[] }>(subgraph.graphqlUrl, query, {
      reps: articleRepresentations(urls(2)),
    });

    expect(response.data?._entities.map((entity) => [entity.bad, entity.zero])).toEqual([
      [null, null],
      [null, null],
    ]);
    const paths = (response.errors ?? []).map((error) => [
      error.extensions?.code,
      (error.extensions?.invalidArgs as { path: string }[])[0].path,
    ]);
    expect(new Set(paths.map((path) => JSON.stringify(path)))).toEqual(
      new Set([JSON.stringify(['BAD_USER_INPUT', 'window.range']), JSON.stringify(['BAD_USER_INPUT', 'window.last.number'])]),
    );
    expect((await readStats(emulator)).dashboard.count).toBe(0);
  });

  it('nulls only analytics, with the upstream error, when the reporting API fails', async () => {
    await addFault(emulator, { target: 'dashboard', status: 503 });
    const query = `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url analytics { pageViews uniqueUsers } } } }`;
    const batch = urls(2);
    const response = await postGraphQL<{ _entities: { url: string; analytics: null }[] }>(subgraph.graphqlUrl, query, {
      reps: articleRepresentations(batch),
    });

    expect(response.data?._entities).toEqual(batch.map((url) => ({ url, analytics: null })));
    // One error per article (not one per selected metric), at the analytics field.
    expect(response.errors?.map((error) => [error.extensions?.code, error.path])).toEqual([
      ['UPSTREAM_UNAVAILABLE', ['_entities', 0, 'analytics']],
      ['UPSTREAM_UNAVAILABLE', ['_entities', 1, 'analytics']],
    ]);
  });
});

interface Ranking {
  rank: number;
  value: number;
  article: { url: string };
}

const TOP = `query ($metric: Metric, $domain: String, $section: String, $limit: Int, $window: DateWindowInput) {
  topArticles(metric: $metric, domain: $domain, section: $section, limit: $limit, window: $window) { rank value article { url } }
}`;

describe('topArticles', () => {
  it('is one dashboard query, filtered by domain and section, ranked by the metric', async () => {
    const article = emulator.store.articles[0];
    const window = { range: { start: new Date(Date.now() - 30 * DAY_MS).toISOString(), end: new Date().toISOString() } };
    const variables = { metric: 'UNIQUE_USERS', domain: article.domain, section: article.sections[0], limit: 5, window };
    const response = await postGraphQL<{ topArticles: Ranking[] }>(subgraph.graphqlUrl, TOP, variables);

    expect(response.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(1);
    expect(subgraph.bodies[0]).toMatchObject({
      filters: [
        { filter: 'domain', op: 'eq', value: [article.domain] },
        { filter: 'section', op: 'eq', value: [article.sections[0]] },
      ],
      groupBy: ['url'],
      metrics: ['uniqueUsers'],
      order: { metric: 'uniqueUsers', sort: 'DESC' },
      limit: 5,
    });
    const ranking = response.data?.topArticles ?? [];
    expect(ranking.length).toBeGreaterThan(0);
    expect(ranking.map((entry) => entry.rank)).toEqual(ranking.map((_entry, index) => index + 1));
    const fromTo = { from: window.range.start, to: window.range.end };
    for (const entry of ranking) {
      expect(entry.value).toBe((await directArticleMetrics(emulator, token, entry.article.url, fromTo, ['uniqueUsers'])).uniqueUsers);
    }
    const values = ranking.map((entry) => entry.value);
    expect(values).toEqual([...values].sort((a, b) => b - a));
  });

  it('accepts NEW_ARTICLES and the defaults', async () => {
    const response = await postGraphQL<{ topArticles: Ranking[] }>(subgraph.graphqlUrl, TOP, { metric: 'NEW_ARTICLES', limit: 3 });

    expect(response.errors).toBeUndefined();
    expect(subgraph.bodies[0].metrics).toEqual(['newArticles']);
    expect(response.data?.topArticles.length).toBeLessThanOrEqual(3);
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ domain: ' ' }, 'domain'],
    [{ window: { last: { number: 1, unit: 'DAY' }, range: { start: '2026-11-01', end: '2026-11-02' } } }, 'window'],
    [{ window: { range: { start: 'yesterday', end: '2026-11-02' } } }, 'window.range.start'],
  ])('rejects %j before any upstream call, naming %s', async (variables, path) => {
    const response = await postGraphQL(subgraph.graphqlUrl, TOP, variables);

    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(response.errors?.[0].extensions?.invalidArgs).toEqual([expect.objectContaining({ path })]);
    expect((await readStats(emulator)).dashboard.count).toBe(0);
  });
});

describe('cache hints', () => {
  /** One POST, keeping the response's cache-control header. */
  async function cacheControlOf(query: string, variables: Record<string, unknown> = {}): Promise<string | null> {
    const response = await fetch(subgraph.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { errors?: unknown };
    if (body.errors !== undefined) throw new Error(`unexpected errors: ${JSON.stringify(body.errors)}`);
    return response.headers.get('cache-control');
  }

  const ANALYTICS = `query ($reps: [_Any!]!, $window: DateWindowInput) {
    _entities(representations: $reps) { ... on Article { analytics(window: $window) { pageViews } } }
  }`;

  it('gives a relative window the dashboard TTL (it keeps moving), though it is sent upstream as a range', async () => {
    expect(await cacheControlOf(ANALYTICS, { reps: articleRepresentations(urls(2)) })).toBe('max-age=60, public');
    expect(await cacheControlOf(TOP, { limit: 2 })).toBe('max-age=60, public');
  });

  it('keeps an ended range an hour', async () => {
    const window = { range: { start: '2026-01-01', end: '2026-01-02' } };
    expect(await cacheControlOf(ANALYTICS, { reps: articleRepresentations(urls(2)), window })).toBe('max-age=3600, public');
    expect(await cacheControlOf(TOP, { limit: 2, window })).toBe('max-age=3600, public');
  });
});
