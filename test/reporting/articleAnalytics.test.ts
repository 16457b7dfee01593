import { articleMetricsQuery, canonicalMetrics, chunkUrls } from '../../src/reporting/analytics/articleMetricsQuery';
import { toTopArticlesRequest, validateTopArticles } from '../../src/reporting/analytics/topArticles';
import { alignInstant, resolveWindow, validateWindow, type ResolvedWindow } from '../../src/reporting/analytics/window';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../src/upstream/datasources/wire';
import { UpstreamError } from '../../src/upstream/failures/upstreamError';
import { articleMetricsBatch, type ArticleMetricKey } from '../../src/operation/loaders/articleMetrics';
import { execute, fakeReporting, FAKE_FETCHED_AT, startTestServer } from '../support/subgraph';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 30, 250);
const DAY_MS = 86_400_000;

const WEEK = resolveWindow({ last: { number: 7, unit: 'day' } }, NOW);
const MONTH = resolveWindow({ last: { number: 30, unit: 'day' } }, NOW);

/** Every url of the filter gets a row, except those containing "quiet"; the total encodes the url's length and the metric. */
function rowsPerUrl(body: DashboardQueryBody): DashboardMetricResultWire[] {
  const urls = body.filters[0].value.filter((url) => !url.includes('quiet'));
  return body.metrics.map((metric, index) => ({
    metric,
    total: 0,
    granularity: 'daily',
    availableGranularities: ['daily'],
    actualData: {
      values: urls.map((url) => ({ key: url, total: url.length * 10 + index, items: [{ id: url, value: url, type: 'url' }] })),
      data: [],
    },
  }));
}

const key = (window: ResolvedWindow, url: string, metric: MetricName): ArticleMetricKey => ({ window, url, metric });

describe('the article metrics batch', () => {
  it('makes one query per window with the union of its metrics and urls, and gives absent articles 0', async () => {
    const reporting = fakeReporting(async (body) => rowsPerUrl(body));
    const batch = articleMetricsBatch(reporting, { chunkSize: 500 });
    const keys = [
      key(WEEK, 'https://a.example/1', 'uniqueUsers'),
      key(WEEK, 'https://a.example/22', 'pageViewsTotal'),
      key(MONTH, 'https://a.example/1', 'revenueTotal'),
      key(WEEK, 'https://a.example/quiet', 'pageViewsTotal'),
    ];

    const results = await batch(keys);

    expect(reporting.bodies).toEqual([
      articleMetricsQuery(
        WEEK,
        ['https://a.example/1', 'https://a.example/22', 'https://a.example/quiet'],
        ['pageViewsTotal', 'uniqueUsers'],
      ),
      articleMetricsQuery(MONTH, ['https://a.example/1'], ['revenueTotal']),
    ]);
    expect(results).toEqual([
      { value: 19 * 10 + 1, fetchedAt: FAKE_FETCHED_AT },
      { value: 20 * 10, fetchedAt: FAKE_FETCHED_AT },
      { value: 19 * 10, fetchedAt: FAKE_FETCHED_AT },
      { value: 0, fetchedAt: FAKE_FETCHED_AT },
    ]);
  });

  it('chunks urls and fails only the keys of a failed chunk', async () => {
    const failure = new UpstreamError({ service: 'reporting', endpoint: '/api/dashboard/query', kind: 'http', status: 503 });
    const reporting = fakeReporting(async (body) => {
      if (body.filters[0].value.includes('https://b.example/3')) throw failure;
      return rowsPerUrl(body);
    });
    const urls = ['https://b.example/5', 'https://b.example/1', 'https://b.example/3', 'https://b.example/4', 'https://b.example/2'];

    const results = await articleMetricsBatch(reporting, { chunkSize: 2 })(urls.map((url) => key(WEEK, url, 'pageViewsTotal')));

    expect(reporting.bodies.map((body) => body.filters[0].value)).toEqual([
      ['https://b.example/1', 'https://b.example/2'],
      ['https://b.example/3', 'https://b.example/4'],
      ['https://b.example/5'],
    ]);
    expect(reporting.bodies.map((body) => body.limit)).toEqual([2, 2, 1]);
    expect(results.map((result) => (result instanceof Error ? result : result.value))).toEqual([190, 190, failure, failure, 190]);
  });

  it('keeps every chunk within the rows cap (REPORTING_MAX_ROWS, default 500) whatever ANALYTICS_CHUNK_SIZE says', async () => {
    const reporting = fakeReporting(async (body) => rowsPerUrl(body));
    const urls = Array.from({ length: 600 }, (_, i) => `https://c.example/${String(i).padStart(3, '0')}`);

    const results = await articleMetricsBatch(reporting, { chunkSize: 1000 })(urls.map((url) => key(WEEK, url, 'pageViewsTotal')));

    expect(reporting.bodies.map((body) => [body.filters[0].value.length, body.limit])).toEqual([
      [500, 500],
      [100, 100],
    ]);
    expect(results.every((result) => !(result instanceof Error))).toBe(true);
  });

  it('fails a key whose metric the answer left out, instead of reporting 0', async () => {
    const reporting = fakeReporting(async (body) => rowsPerUrl({ ...body, metrics: body.metrics.slice(0, 1) }));

    const results = await articleMetricsBatch(reporting, { chunkSize: 10 })([
      key(WEEK, 'https://c.example/1', 'pageViewsTotal'),
      key(WEEK, 'https://c.example/1', 'averageScroll'),
    ]);

    expect(results[0]).toEqual({ value: 190, fetchedAt: FAKE_FETCHED_AT });
    expect(results[1]).toBeInstanceOf(UpstreamError);
  });
});

describe('article metrics queries', () => {
  it('orders metrics as the schema does and urls alphabetically, so equal questions make equal bodies', () => {
    expect(canonicalMetrics(['revenueTotal', 'pageViewsTotal', 'averageScroll', 'pageViewsTotal'])).toEqual([
      'pageViewsTotal',
      'averageScroll',
      'revenueTotal',
    ]);
    expect(chunkUrls(['c', 'a', 'b', 'a'], 2)).toEqual([['a', 'b'], ['c']]);
    expect(() => chunkUrls(['a'], 0)).toThrow(RangeError);
    expect(chunkUrls(['c', 'a', 'b', 'd'], 3, 2)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(
      chunkUrls(
        Array.from({ length: 501 }, (_, i) => String(i)),
        1000,
      ).map((chunk) => chunk.length),
    ).toEqual([500, 1]);
  });
});

describe('windows', () => {
  it('pins a relative window to the instant and keeps a range as given', () => {
    expect(WEEK).toEqual({
      key: JSON.stringify(WEEK.dates),
      dates: { range: { start: new Date(NOW - 7 * DAY_MS).toISOString(), end: new Date(NOW).toISOString() } },
      from: NOW - 7 * DAY_MS,
      to: NOW,
    });
    expect(resolveWindow({ last: { number: 2, unit: 'month' } }, NOW).from).toBe(NOW - 60 * DAY_MS);
    expect(resolveWindow({ range: { start: '2026-11-01', end: '2026-11-02' } }, NOW)).toMatchObject({
      dates: { range: { start: '2026-11-01', end: '2026-11-02' } },
      from: Date.UTC(2026, 10, 1),
      to: Date.UTC(2026, 10, 3) - 1,
    });
  });

  it('aligns the operation instant down to whole steps, or not at all with 0', () => {
    expect(alignInstant(NOW, 60)).toBe(Date.UTC(2026, 10, 20, 12, 0, 0));
    expect(alignInstant(NOW, 0)).toBe(NOW);
  });

  it('reports window problems against the given argument', () => {
    expect(validateWindow({ last: { number: 0, unit: 'day' } }, 'window')).toEqual([
      { path: 'window.last.number', message: 'must be at least 1 (got 0)' },
    ]);
    expect(validateWindow({}, 'window')).toEqual([{ path: 'window', message: 'give exactly one of last and range' }]);
    expect(validateWindow({ range: { start: '2026-11-01', end: '2026-11-02' } }, 'window')).toEqual([]);
  });
});

describe('topArticles arguments', () => {
  it('fills defaults for explicit nulls and lists every problem', () => {
    expect(toTopArticlesRequest({ window: null, metric: null, limit: null })).toEqual({
      window: { last: { number: 1, unit: 'day' } },
      metric: 'pageViewsTotal',
      limit: 10,
    });
    const request = toTopArticlesRequest({ limit: 0, section: '', window: { last: { number: -1, unit: 'hour' } } });
    expect(validateTopArticles(request).map((problem) => problem.path)).toEqual(['window.last.number', 'limit', 'section']);
  });
});

describe('the metrics an operation selects', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ reporting: fakeReporting(async (body) => rowsPerUrl(body)) });
  });
  afterAll(async () => {
    await server.apollo.stop();
  });
  beforeEach(() => {
    server.reporting.bodies.length = 0;
  });

  const reps = [{ __typename: 'Article', url: 'https://news.example/article-1' }];

  it('reads fragments, aliases, variables and @include / @skip', async () => {
    const result = await execute(
      server,
      `query ($reps: [_Any!]!, $metric: Metric!, $withScroll: Boolean!) {
        _entities(representations: $reps) { ... on Article { analytics { ...Numbers views: pageViews scroll: averageScroll @include(if: $withScroll) } } }
      }
      fragment Numbers on ArticleAnalytics { m: metric(metric: $metric) revenue @skip(if: true) }`,
      { reps, metric: 'CPM', withScroll: false },
    );

    expect(result.errors).toBeUndefined();
    expect(server.reporting.bodies.map((body) => body.metrics)).toEqual([['pageViewsTotal', 'CPM']]);
    // rowsPerUrl: the url's length (30) × 10, plus the metric's index in the body.
    expect(result.data).toEqual({ _entities: [{ analytics: { m: 301, views: 300 } }] });
  });

  it('asks for one metric when only fetchedAt is read, and for nothing when only from/to are', async () => {
    const fetchedAt = await execute(
      server,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { fetchedAt } } } }`,
      {
        reps,
      },
    );
    expect(fetchedAt.data).toEqual({ _entities: [{ analytics: { fetchedAt: new Date(FAKE_FETCHED_AT).toISOString() } }] });
    expect(server.reporting.bodies.map((body) => body.metrics)).toEqual([['pageViewsTotal']]);

    const window = await execute(
      server,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { from to } } } }`,
      {
        reps,
      },
    );
    expect(window.errors).toBeUndefined();
    expect(server.reporting.bodies).toHaveLength(1);
  });
});
