import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import type { BuiltServer } from '../../src/web/server';
import {
  DEFAULT_CACHE_TTLS,
  FAKE_FETCHED_AT,
  errorCodes,
  execute,
  fakeReporting,
  fakeRecommender,
  itemsFor,
  resultsFor,
  silentLogger,
  startTestServer,
} from '../support/subgraph';
import type { RecommendationData } from '../support/recommendationData';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const RECOMMENDATION_FIELDS = 'position url title img authors sections publishTime publishedAt article { url }';

let server: Server;
afterEach(async () => {
  await server?.stop();
});

describe('Query.recommendations', () => {
  it('asks render.json with exactly the given parameters and ranks the items from 1', async () => {
    server = await startTestServer();
    const result = await execute<{ recommendations: RecommendationData[] }>(
      server,
      `query Recs($id: ID!, $url: String, $client: ID) {
        recommendations(experienceId: $id, canonicalUrl: $url, clientId: $client) { ${RECOMMENDATION_FIELDS} }
      }`,
      { id: 'IL_exp', url: 'https://news.example/a', client: 'reader-7' },
    );
    expect(result.errors).toBeUndefined();
    expect(server.recommender.calls).toEqual([{ id: 'IL_exp', canonicalUrl: 'https://news.example/a', clientId: 'reader-7' }]);
    const expected = itemsFor(server.recommender.calls[0]);
    expect(result.data?.recommendations).toEqual(
      expected.map((item, index) => ({
        ...item,
        position: index + 1,
        publishedAt: `${item.publishTime.replace(' ', 'T')}.000Z`,
        article: { url: item.url },
      })),
    );
  });

  it('answers null publishedAt and null img when the upstream item lacks them', async () => {
    const { img: _img, ...withoutImg } = { ...itemsFor({ id: 'IL_x' }, 1)[0], publishTime: '20/11/2026 08:15' };
    server = await startTestServer({ recommender: fakeRecommender(async () => [withoutImg]) });
    const result = await execute<{ recommendations: { img: string | null; publishTime: string; publishedAt: string | null }[] }>(
      server,
      '{ recommendations(experienceId: "IL_x", domain: "news.example") { img publishTime publishedAt } }',
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.recommendations).toEqual([{ img: null, publishTime: '20/11/2026 08:15', publishedAt: null }]);
  });

  it('makes one render call per distinct parameter set in an operation', async () => {
    server = await startTestServer();
    const result = await execute(
      server,
      `{
        a: recommendations(experienceId: "IL_1", domain: "news.example") { url }
        b: recommendations(experienceId: "IL_1", domain: "news.example") { title }
        c: recommendations(experienceId: "IL_1", domain: "news.example") { position }
        d: recommendations(experienceId: "IL_1", domain: "news.example", clientId: "r1") { url }
        e: recommendations(experienceId: "IL_2", domain: "news.example") { url }
      }`,
    );
    expect(result.errors).toBeUndefined();
    expect(server.recommender.calls).toEqual([
      { id: 'IL_1', domain: 'news.example' },
      { id: 'IL_1', domain: 'news.example', clientId: 'r1' },
      { id: 'IL_2', domain: 'news.example' },
    ]);
  });

  it('does not share cached answers between operations', async () => {
    server = await startTestServer();
    const query = '{ recommendations(experienceId: "IL_1", domain: "news.example") { url } }';
    await execute(server, query);
    await execute(server, query);
    expect(server.recommender.calls).toHaveLength(2);
  });

  it('fails only the field whose render call failed, with the mapped code', async () => {
    const recommender = fakeRecommender(async (params) => {
      if (params.id === 'IL_unknown') {
        throw new UpstreamError({
          service: 'recommender',
          endpoint: '/recommenderexperience/render.json',
          kind: 'http',
          status: 404,
          upstreamMessage: 'Experience not found',
        });
      }
      return itemsFor(params);
    });
    server = await startTestServer({ recommender });
    const result = await execute<{ good: { url: string }[] | null; bad: { url: string }[] | null }>(
      server,
      `{
        good: recommendations(experienceId: "IL_known", domain: "news.example") { url }
        bad: recommendations(experienceId: "IL_unknown", domain: "news.example") { url }
      }`,
    );
    // The root fields are non-null (public contract), so the failed one nulls `data`; the error
    // still names only the failing alias, and the other call was made and answered.
    expect(result.errors?.map((error) => ({ path: error.path, code: error.extensions?.code }))).toEqual([
      { path: ['bad'], code: 'NOT_FOUND' },
    ]);
    expect(result.errors?.[0].extensions?.upstream).toEqual({
      service: 'recommender',
      endpoint: '/recommenderexperience/render.json',
      status: 404,
    });
    expect(server.recommender.calls.map((params) => params.id)).toEqual(['IL_known', 'IL_unknown']);
  });

  it('fails only the related list whose render call failed, in an _entities batch', async () => {
    const recommender = fakeRecommender(async (params) => {
      if (params.canonicalUrl === 'https://news.example/broken') {
        throw new UpstreamError({ service: 'recommender', endpoint: '/recommenderexperience/render.json', kind: 'http', status: 503 });
      }
      return itemsFor(params, 1);
    });
    server = await startTestServer({ recommender });
    const result = await execute<{ _entities: ({ url: string; related: { title: string }[] | null } | null)[] }>(
      server,
      `{ _entities(representations: [
          { __typename: "Article", url: "https://news.example/fine" },
          { __typename: "Article", url: "https://news.example/broken" }
        ]) { ... on Article { url related(experienceId: "IL_1") { title } } } }`,
    );
    expect(result.errors?.map((error) => ({ path: error.path, code: error.extensions?.code }))).toEqual([
      { path: ['_entities', 1, 'related'], code: 'UPSTREAM_UNAVAILABLE' },
    ]);
    expect(result.data?._entities).toEqual([
      {
        url: 'https://news.example/fine',
        related: [{ title: itemsFor({ id: 'IL_1', canonicalUrl: 'https://news.example/fine' }, 1)[0].title }],
      },
      { url: 'https://news.example/broken', related: null },
    ]);
  });

  it.each([
    ['an empty experienceId', '{ recommendations(experienceId: "", domain: "news.example") { url } }', ['experienceId']],
    ['a relative canonicalUrl', '{ recommendations(experienceId: "IL_1", canonicalUrl: "/a/b") { url } }', ['canonicalUrl']],
    [
      'a non-http canonicalUrl',
      '{ recommendations(experienceId: "IL_1", canonicalUrl: "ftp://news.example/a") { url } }',
      ['canonicalUrl'],
    ],
    ['neither canonicalUrl nor domain', '{ recommendations(experienceId: "IL_1", clientId: "r") { url } }', ['domain']],
    [
      'an empty domain and clientId',
      '{ recommendations(experienceId: "IL_1", domain: "", clientId: " ") { url } }',
      ['domain', 'clientId'],
    ],
  ])('rejects %s with BAD_USER_INPUT and no upstream call', async (_case, query, paths) => {
    server = await startTestServer();
    const result = await execute(server, query);
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    const invalidArgs = result.errors?.[0].extensions?.invalidArgs as { path: string; message: string }[];
    expect(invalidArgs.map((problem) => problem.path)).toEqual(paths);
    expect(server.recommender.calls).toEqual([]);
  });
});

describe('Article entity', () => {
  it('resolves explicit representations and asks render.json once per distinct url', async () => {
    server = await startTestServer();
    const urls = ['https://news.example/a', 'https://news.example/b', 'https://news.example/a'];
    const result = await execute<{ _entities: { __typename: string; url: string; related: { position: number; title: string }[] }[] }>(
      server,
      `query Entities($representations: [_Any!]!) {
        _entities(representations: $representations) {
          __typename
          ... on Article { url related(experienceId: "IL_sim", clientId: "reader-1") { position title } }
        }
      }`,
      { representations: urls.map((url) => ({ __typename: 'Article', url })) },
    );
    expect(result.errors).toBeUndefined();
    expect(server.recommender.calls).toEqual([
      { id: 'IL_sim', canonicalUrl: 'https://news.example/a', clientId: 'reader-1' },
      { id: 'IL_sim', canonicalUrl: 'https://news.example/b', clientId: 'reader-1' },
    ]);
    expect(result.data?._entities.map((entity) => [entity.__typename, entity.url, entity.related[0].title])).toEqual(
      urls.map((url) => ['Article', url, itemsFor({ id: 'IL_sim', canonicalUrl: url, clientId: 'reader-1' })[0].title]),
    );
    expect(result.data?._entities[0].related.map((item) => item.position)).toEqual([1, 2, 3]);
  });

  it('rejects an article whose url is not absolute, without an upstream call', async () => {
    server = await startTestServer();
    const result = await execute(
      server,
      `{ _entities(representations: [{ __typename: "Article", url: "not-a-url" }]) { ... on Article { related(experienceId: "IL_1") { url } } } }`,
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors?.[0].extensions?.invalidArgs).toEqual([
      { path: 'url', message: 'must be an absolute http(s) URL (got "not-a-url")' },
    ]);
    expect(server.recommender.calls).toEqual([]);
  });
});

describe('Reader entity', () => {
  it('resolves explicit representations and personalizes for the reader', async () => {
    server = await startTestServer();
    const result = await execute<{ _entities: { clientId: string; recommendations: { url: string }[] }[] }>(
      server,
      `{ _entities(representations: [{ __typename: "Reader", clientId: "r1" }, { __typename: "Reader", clientId: "r2" }]) {
          ... on Reader { clientId recommendations(experienceId: "IL_p", domain: "news.example") { url } }
        } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?._entities.map((reader) => reader.clientId)).toEqual(['r1', 'r2']);
    expect(server.recommender.calls).toEqual([
      { id: 'IL_p', domain: 'news.example', clientId: 'r1' },
      { id: 'IL_p', domain: 'news.example', clientId: 'r2' },
    ]);
  });

  it('requires canonicalUrl or domain, before any upstream call', async () => {
    server = await startTestServer();
    const result = await execute(
      server,
      '{ _entities(representations: [{ __typename: "Reader", clientId: "r1" }]) { ... on Reader { recommendations(experienceId: "IL_p") { url } } } }',
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(server.recommender.calls).toEqual([]);
  });
});

describe('Recommendation.article', () => {
  it('is an Article reference whose related field the same subgraph resolves', async () => {
    server = await startTestServer();
    const result = await execute<{ recommendations: { article: { url: string; related: { url: string }[] } }[] }>(
      server,
      '{ recommendations(experienceId: "IL_1", domain: "news.example") { article { url related(experienceId: "IL_2") { url } } } }',
    );
    expect(result.errors).toBeUndefined();
    const first = itemsFor({ id: 'IL_1', domain: 'news.example' });
    expect(result.data?.recommendations.map((item) => item.article.url)).toEqual(first.map((item) => item.url));
    expect(server.recommender.calls.slice(1)).toEqual(first.map((item) => ({ id: 'IL_2', canonicalUrl: item.url })));
  });
});

const DASHBOARD = `query Dashboard($query: DashboardQueryInput!) {
  dashboard(query: $query) {
    metric total granularity availableGranularities
    rows { key total dimensions { dimension id value } article { url } }
    series { time value }
  }
}`;

describe('fetchedAt', () => {
  it('reports when each answer arrived from the upstream, as an ISO instant', async () => {
    server = await startTestServer();
    const result = await execute<{ recommendations: { fetchedAt: string }[]; dashboard: { fetchedAt: string }[] }>(
      server,
      `{
        recommendations(experienceId: "IL_1", domain: "news.example") { fetchedAt }
        dashboard(query: { dates: { last: { number: 1, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL, UNIQUE_USERS] }) { fetchedAt }
      }`,
    );
    const iso = new Date(FAKE_FETCHED_AT).toISOString();
    expect(result.errors).toBeUndefined();
    expect(result.data?.recommendations).toEqual([{ fetchedAt: iso }, { fetchedAt: iso }, { fetchedAt: iso }]);
    expect(result.data?.dashboard).toEqual([{ fetchedAt: iso }, { fetchedAt: iso }]);
  });
});

describe('Query.dashboard', () => {
  it('sends upstream names and returns schema names, rows, series and ISO times', async () => {
    server = await startTestServer();
    const result = await execute<{
      dashboard: {
        metric: string;
        total: number;
        granularity: string;
        availableGranularities: string[];
        rows: { key: string; dimensions: { dimension: string; value: string }[]; article: { url: string } | null }[];
        series: { time: string; value: number }[];
      }[];
    }>(server, DASHBOARD, {
      query: {
        dates: { last: { number: 3, unit: 'HOUR' } },
        metrics: ['AVERAGE_RFV', 'CPM'],
        groupBy: ['URL', 'DEVICE_TYPE'],
        filters: [{ dimension: 'USER_TYPE', operator: 'NEQ', values: ['new'] }],
        granularity: 'REALTIME',
      },
    });
    expect(result.errors).toBeUndefined();
    expect(server.reporting.bodies).toEqual([
      {
        dates: { last: { number: 3, dimension: 'hour' } },
        filters: [{ filter: 'userType', op: 'neq', value: ['new'] }],
        groupBy: ['url', 'deviceType'],
        metrics: ['averageRFV', 'CPM'],
        order: { metric: 'averageRFV', sort: 'DESC' },
        granularity: 'realtime',
        limit: 100,
        from: 0,
      },
    ]);
    const [rfv, cpm] = result.data?.dashboard ?? [];
    const upstream = resultsFor(server.reporting.bodies[0]);
    expect([rfv.metric, cpm.metric]).toEqual(['AVERAGE_RFV', 'CPM']);
    expect(rfv.granularity).toBe('REALTIME');
    expect(rfv.availableGranularities).toEqual(['HOURLY', 'DAILY']);
    expect(rfv.total).toBe(upstream[0].total);
    expect(rfv.rows[0].dimensions.map((d) => d.dimension)).toEqual(['URL', 'DEVICE_TYPE']);
    expect(rfv.rows.map((row) => row.article?.url)).toEqual(upstream[0].actualData.values.map((row) => row.items[0].value));
    expect(rfv.series).toEqual(
      upstream[0].actualData.data.map((point) => ({ time: `${point.key.replace(' ', 'T')}.000Z`, value: point.value })),
    );
  });

  it('has no row article unless grouped by URL', async () => {
    server = await startTestServer();
    const result = await execute<{ dashboard: { rows: { article: { url: string } | null }[] }[] }>(server, DASHBOARD, {
      query: { dates: { last: { number: 1, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'], groupBy: ['SECTION'] },
    });
    expect(result.errors).toBeUndefined();
    expect(result.data?.dashboard[0].rows.map((row) => row.article)).toEqual([null, null]);
  });

  it('reports every problem in one BAD_USER_INPUT, without calling the reporting API', async () => {
    server = await startTestServer();
    const result = await execute(server, DASHBOARD, {
      query: {
        dates: { last: { number: 0, unit: 'DAY' }, range: { start: '2026-11-02', end: '2026-11-01' } },
        metrics: ['NEW_ARTICLES', 'NEW_ARTICLES'],
        groupBy: ['SOURCE'],
        order: { metric: 'CPM', sort: 'ASC' },
        filters: [{ dimension: 'DEVICE_TYPE', operator: 'LIKE', values: [] }],
        limit: 0,
        from: -5,
      },
    });
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    const invalidArgs = result.errors?.[0].extensions?.invalidArgs as { path: string }[];
    expect(invalidArgs.map((problem) => problem.path)).toEqual([
      'query.dates',
      'query.dates.last.number',
      'query.dates.range',
      'query.metrics',
      'query.order.metric',
      'query.groupBy',
      'query.filters[0].values',
      'query.filters[0].operator',
      'query.filters[0].dimension',
      'query.limit',
      'query.from',
    ]);
    expect(result.errors?.[0].message).toMatch(/^11 invalid arguments: query\.dates: give exactly one of last and range; /);
    expect(server.reporting.bodies).toEqual([]);
  });

  it('rejects an unknown enum value through GraphQL validation, before any resolver', async () => {
    server = await startTestServer();
    const result = await execute(server, DASHBOARD, {
      query: { dates: { last: { number: 1, unit: 'DAY' } }, metrics: ['pageViewsTotal'] },
    });
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(server.reporting.bodies).toEqual([]);
  });

  it('passes a reporting API failure on with its code', async () => {
    const reporting = fakeReporting(async () => {
      throw new UpstreamError({ service: 'reporting', endpoint: '/api/dashboard/query', kind: 'http', status: 429, retryAfterSeconds: 30 });
    });
    server = await startTestServer({ reporting });
    const result = await execute(server, DASHBOARD, {
      query: { dates: { last: { number: 1, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'] },
    });
    expect(errorCodes(result)).toEqual(['UPSTREAM_RATE_LIMITED']);
    expect(result.errors?.[0].extensions?.retryAfter).toBe(30);
  });
});

describe('server lifecycle', () => {
  it('is starting before start(), ready after, stopping after stop()', async () => {
    const built: BuiltServer = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 1, cache: DEFAULT_CACHE_TTLS }), {
      recommender: fakeRecommender(),
      dashboard: fakeReporting(),
      logger: silentLogger,
    });
    expect(built.lifecycle()).toBe('starting');
    await built.start();
    expect(built.lifecycle()).toBe('ready');
    await built.stop();
    expect(built.lifecycle()).toBe('stopping');
  });
});
