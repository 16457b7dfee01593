/**
 * The subgraph over real HTTP against the emulator: the calls it makes
 * upstream are counted by the emulator's own stats, not by test doubles.
 */
import type { RunningEmulator } from '../../emulator';
import { postGraphQL } from '../support/federationGateway';
import {
  addFault,
  advanceClock,
  clearFaults,
  emulatorNow,
  readStats,
  resetStats,
  startSmallEmulator,
  startSubgraph,
  PASS_THROUGH,
  type RunningSubgraph,
} from '../support/subgraphHttp';
import type { RecommendationData } from '../support/recommendationData';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  // These tests are about the datasources and error mapping; test/upstream/protection.test.ts covers the cache and breaker.
  subgraph = await startSubgraph(emulator, { timeoutMs: 1_500, protection: PASS_THROUGH });
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

afterEach(async () => {
  await clearFaults(emulator);
});

function experience(rankingProfile: string) {
  const found = emulator.demo.experiences.find((candidate) => candidate.rankingProfile === rankingProfile);
  if (!found) throw new Error(`no seeded ${rankingProfile} experience`);
  return found;
}

const RECOMMENDATIONS = `query Recommendations($experienceId: ID!, $domain: String, $canonicalUrl: String, $clientId: ID) {
  recommendations(experienceId: $experienceId, domain: $domain, canonicalUrl: $canonicalUrl, clientId: $clientId) {
    position url title img authors sections publishTime publishedAt article { url }
  }
}`;

describe('recommendations', () => {
  it('returns a seeded experience ranked from 1, with ISO publication times', async () => {
    const mostRead = experience('mostRead');
    await resetStats(emulator);
    const response = await postGraphQL<{ recommendations: RecommendationData[] }>(subgraph.graphqlUrl, RECOMMENDATIONS, {
      experienceId: mostRead.id,
      domain: mostRead.domain,
    });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
    const items = response.data?.recommendations ?? [];
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(mostRead.size);
    expect(items.map((item) => item.position)).toEqual(items.map((_, index) => index + 1));
    for (const item of items) {
      expect(new URL(item.url).hostname).toBe(mostRead.domain);
      expect(item.article).toEqual({ url: item.url });
      expect(item.publishedAt).toBe(new Date(`${item.publishTime.replace(' ', 'T')}Z`).toISOString());
    }
    expect((await readStats(emulator)).render).toEqual({ count: 1, distinct: 1 });
  });

  it('answers NOT_FOUND for an unknown experience id', async () => {
    const response = await postGraphQL(subgraph.graphqlUrl, RECOMMENDATIONS, {
      experienceId: 'IL_doesNotExist0000000000',
      domain: 'dailyglobe.example',
    });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(response.errors?.[0].extensions?.upstream).toEqual({
      service: 'recommender',
      endpoint: '/recommenderexperience/render.json',
      status: 404,
    });
  });

  it('fails only the alias whose experience is unknown', async () => {
    const mostRead = experience('mostRead');
    await resetStats(emulator);
    const response = await postGraphQL(
      subgraph.graphqlUrl,
      `query Two($known: ID!, $domain: String!) {
        known: recommendations(experienceId: $known, domain: $domain) { url }
        unknown: recommendations(experienceId: "IL_doesNotExist0000000000", domain: $domain) { url }
      }`,
      { known: mostRead.id, domain: mostRead.domain },
    );
    // Both calls were made; only `unknown` failed (a nullable field: `known` keeps its data).
    expect(response.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([[['unknown'], 'NOT_FOUND']]);
    expect((await readStats(emulator)).render).toEqual({ count: 2, distinct: 2 });
  });

  it('rejects an invalid canonicalUrl without calling the recommender', async () => {
    await resetStats(emulator);
    const response = await postGraphQL(subgraph.graphqlUrl, RECOMMENDATIONS, {
      experienceId: experience('similar').id,
      canonicalUrl: 'dailyglobe.example/a',
    });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect((await readStats(emulator)).render.count).toBe(0);
  });
});

describe('entities', () => {
  it('resolves 10 Article representations with 3 duplicates in one render call per distinct url', async () => {
    const similar = experience('similar');
    const distinct = emulator.store.articles
      .filter((article) => article.domain === similar.domain)
      .slice(0, 7)
      .map((article) => article.url);
    expect(distinct).toHaveLength(7);
    const urls = [...distinct, distinct[0], distinct[3], distinct[6]];
    await resetStats(emulator);
    const response = await postGraphQL<{ _entities: { url: string; related: { url: string; position: number }[] }[] }>(
      subgraph.graphqlUrl,
      `query Related($representations: [_Any!]!, $experienceId: ID!) {
        _entities(representations: $representations) { ... on Article { url related(experienceId: $experienceId) { url position } } }
      }`,
      { representations: urls.map((url) => ({ __typename: 'Article', url })), experienceId: similar.id },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?._entities.map((entity) => entity.url)).toEqual(urls);
    for (const entity of response.data?._entities ?? []) {
      expect(entity.related.length).toBeGreaterThan(0);
      // The recommender never recommends the article itself.
      expect(entity.related.map((item) => item.url)).not.toContain(entity.url);
    }
    expect((await readStats(emulator)).render).toEqual({ count: 7, distinct: 7 });
  });

  it('resolves Reader representations with personalized recommendations', async () => {
    const personalized = experience('personalized');
    const response = await postGraphQL<{ _entities: { clientId: string; recommendations: { url: string }[] }[] }>(
      subgraph.graphqlUrl,
      `query Readers($experienceId: ID!, $domain: String!) {
        _entities(representations: [{ __typename: "Reader", clientId: "reader-a" }, { __typename: "Reader", clientId: "reader-b" }]) {
          ... on Reader { clientId recommendations(experienceId: $experienceId, domain: $domain) { url } }
        }
      }`,
      { experienceId: personalized.id, domain: personalized.domain },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?._entities.map((reader) => reader.clientId)).toEqual(['reader-a', 'reader-b']);
    expect(response.data?._entities.every((reader) => reader.recommendations.length > 0)).toBe(true);
  });
});

const DASHBOARD = `query Dashboard($query: DashboardQueryInput!) {
  dashboard(query: $query) {
    metric total granularity availableGranularities
    rows { key total dimensions { dimension value } article { url } }
    series { time value }
  }
}`;

interface DashboardData {
  dashboard: {
    metric: string;
    total: number;
    granularity: string;
    rows: { key: string; total: number; dimensions: { dimension: string; value: string }[]; article: { url: string } | null }[];
    series: { time: string; value: number }[];
  }[];
}

function isoDay(date: Date, daysBack: number): string {
  return new Date(date.getTime() - daysBack * 86_400_000).toISOString().slice(0, 10);
}

describe('dashboard', () => {
  it('reports totals, URL rows with articles, and an hourly series covering the window', async () => {
    const now = await emulatorNow(emulator);
    const start = isoDay(now, 3);
    const end = isoDay(now, 1);
    const response = await postGraphQL<DashboardData>(subgraph.graphqlUrl, DASHBOARD, {
      query: {
        dates: { range: { start, end } },
        metrics: ['PAGE_VIEWS_TOTAL', 'UNIQUE_USERS'],
        groupBy: ['URL'],
        granularity: 'HOURLY',
        limit: 5,
      },
    });
    expect(response.errors).toBeUndefined();
    const [pageViews, users] = response.data?.dashboard ?? [];
    expect([pageViews.metric, users.metric]).toEqual(['PAGE_VIEWS_TOTAL', 'UNIQUE_USERS']);
    expect(pageViews.total).toBeGreaterThan(0);
    expect(users.total).toBeGreaterThan(0);
    expect(pageViews.granularity).toBe('HOURLY');
    // Three whole days (the end day included), hour by hour, oldest first.
    expect(pageViews.series).toHaveLength(72);
    expect(pageViews.series[0].time).toBe(`${start}T00:00:00.000Z`);
    expect(pageViews.series[71].time).toBe(`${end}T23:00:00.000Z`);
    expect(pageViews.series.reduce((sum, point) => sum + point.value, 0)).toBe(pageViews.total);
    expect(pageViews.rows.length).toBeGreaterThan(0);
    expect(pageViews.rows.length).toBeLessThanOrEqual(5);
    for (const row of pageViews.rows) {
      expect(row.dimensions).toEqual([{ dimension: 'URL', value: row.article?.url }]);
    }
  });

  it.each([
    { name: 'a 99,999,999-day window', query: { dates: { last: { number: 99_999_999, unit: 'DAY' } } }, path: 'query.dates.last.number' },
    {
      name: 'REALTIME over 1900-9999',
      query: { dates: { range: { start: '1900-01-01', end: '9999-12-31' } }, granularity: 'REALTIME' },
      path: 'query.dates.range',
    },
    {
      name: 'REALTIME over 30 days',
      query: { dates: { last: { number: 30, unit: 'DAY' } }, granularity: 'REALTIME' },
      path: 'query.granularity',
    },
    {
      name: 'HOURLY over 5 weeks',
      query: { dates: { last: { number: 5, unit: 'WEEK' } }, granularity: 'HOURLY' },
      path: 'query.granularity',
    },
    { name: 'a limit of 1001', query: { dates: { last: { number: 1, unit: 'DAY' } }, limit: 1001 }, path: 'query.limit' },
    {
      name: 'NEW_ARTICLES by device type',
      query: { dates: { last: { number: 1, unit: 'DAY' } }, metrics: ['NEW_ARTICLES'], groupBy: ['DEVICE_TYPE'] },
      path: 'query.groupBy',
    },
  ])('refuses $name as BAD_USER_INPUT naming $path, before any upstream call', async ({ query, path }) => {
    await resetStats(emulator);
    const response = await postGraphQL(subgraph.graphqlUrl, DASHBOARD, { query: { metrics: ['PAGE_VIEWS_TOTAL'], ...query } });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(response.errors?.[0].extensions?.invalidArgs).toEqual([{ path, message: expect.any(String) }]);
    expect(response.errors?.[0].message).toContain(path);
    expect(response.data).toEqual({ dashboard: null });
    // Not even a sign-in: an invalid query spends none of the account's budget.
    expect(await readStats(emulator)).toMatchObject({ dashboard: { count: 0 }, signin: { count: 0 } });
  });
});

describe('upstream faults', () => {
  const ONE_DAY = { dates: { last: { number: 1, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'] };

  it.each([
    ['a render 503', 'UPSTREAM_UNAVAILABLE', { target: 'render', status: 503 }],
    ['a render reset connection', 'UPSTREAM_UNAVAILABLE', { target: 'render', reset: true }],
    ['a render 429', 'UPSTREAM_RATE_LIMITED', { target: 'render', status: 429 }],
    ['a render slower than the timeout', 'UPSTREAM_TIMEOUT', { target: 'render', delayMs: 4_000 }],
  ])('maps %s to %s', async (_case, code, fault) => {
    const mostRead = experience('mostRead');
    await addFault(emulator, fault);
    const response = await postGraphQL(subgraph.graphqlUrl, RECOMMENDATIONS, { experienceId: mostRead.id, domain: mostRead.domain });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual([code]);
  });

  it.each([
    ['a dashboard 429', 'UPSTREAM_RATE_LIMITED', { target: 'dashboard', status: 429 }],
    ['a dashboard 403', 'UPSTREAM_FORBIDDEN', { target: 'dashboard', status: 403 }],
    ['a dashboard 500', 'UPSTREAM_UNAVAILABLE', { target: 'dashboard', status: 500 }],
  ])('maps %s to %s', async (_case, code, fault) => {
    await addFault(emulator, fault);
    const response = await postGraphQL(subgraph.graphqlUrl, DASHBOARD, { query: ONE_DAY });
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual([code]);
    expect(response.errors?.[0].extensions?.upstream).toEqual({
      service: 'reporting',
      endpoint: '/api/dashboard/query',
      status: fault.status,
    });
  });

  it('includes retryAfter for a rate-limited dashboard', async () => {
    await addFault(emulator, { target: 'dashboard', status: 429 });
    const response = await postGraphQL(subgraph.graphqlUrl, DASHBOARD, { query: ONE_DAY });
    expect(response.errors?.[0].extensions?.retryAfter).toEqual(expect.any(Number));
  });
});

describe('health', () => {
  it('is live and ready while serving', async () => {
    for (const path of ['/health/live', '/health/ready']) {
      const response = await fetch(`${subgraph.baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect(await (await fetch(`${subgraph.baseUrl}/health/ready`)).json()).toEqual({ status: 'ready' });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await fetch(`${subgraph.baseUrl}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Not found: GraphQL is served at /graphql' });
  });

  it('answers a malformed JSON body with a JSON 400', async () => {
    const response = await fetch(subgraph.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});

// Its own emulator and subgraph: moving the clock two weeks ahead would empty every other test's relative windows.
describe('token expiry', () => {
  let emulator: RunningEmulator;
  let subgraph: RunningSubgraph;

  beforeAll(async () => {
    emulator = await startSmallEmulator();
    subgraph = await startSubgraph(emulator, { timeoutMs: 1_500, protection: PASS_THROUGH });
  });

  afterAll(async () => {
    await subgraph?.close();
    await emulator?.close();
  });

  it('signs in again exactly once when the upstream says the token expired', async () => {
    const first = await postGraphQL(subgraph.graphqlUrl, DASHBOARD, {
      query: { dates: { last: { number: 1, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'] },
    });
    expect(first.errors).toBeUndefined();
    await resetStats(emulator);
    await advanceClock(emulator, 15 * 86_400);
    // Three dashboard fields of one operation start together, so all three are
    // sent with the expired token before any answer: no race decides the count.
    const three = await postGraphQL<Record<string, { total: number }[]>>(
      subgraph.graphqlUrl,
      `query Three($one: DashboardQueryInput!, $two: DashboardQueryInput!, $three: DashboardQueryInput!) {
        one: dashboard(query: $one) { total }
        two: dashboard(query: $two) { total }
        three: dashboard(query: $three) { total }
      }`,
      Object.fromEntries(
        (['one', 'two', 'three'] as const).map((name, index) => [
          name,
          { dates: { last: { number: index + 1, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'] },
        ]),
      ),
    );
    expect(three.errors).toBeUndefined();
    expect(Object.keys(three.data ?? {})).toEqual(['one', 'two', 'three']);
    const stats = await readStats(emulator);
    expect(stats.signin.count).toBe(1);
    // Each query was sent with the expired token, then once more with the new one.
    expect(stats.dashboard.count).toBe(6);
  });
});
