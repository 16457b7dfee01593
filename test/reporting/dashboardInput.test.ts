import type { DashboardQueryInput } from '../../src/graphql/__generated__/resolvers-types';
import { toDashboardQueryBody } from '../../src/reporting/dashboard/toQueryBody';
import { validateDashboardQuery } from '../../src/reporting/dashboard/validate';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection, TimeUnit } from '../../contract';

/** A valid query (last 7 days of page views); `overrides` replace top-level fields. */
function query(overrides: Partial<DashboardQueryInput> = {}): DashboardQueryInput {
  return {
    dates: { last: { number: 7, unit: TimeUnit.DAY } },
    filters: [],
    groupBy: [],
    metrics: [Metric.PAGE_VIEWS_TOTAL],
    limit: 100,
    from: 0,
    ...overrides,
  };
}

function paths(input: DashboardQueryInput): string[] {
  return validateDashboardQuery(input).map((problem) => problem.path);
}

describe('validateDashboardQuery', () => {
  it('accepts a valid query', () => {
    expect(validateDashboardQuery(query())).toEqual([]);
    expect(
      validateDashboardQuery(
        query({
          dates: { range: { start: '2026-11-01', end: '2026-11-01' } },
          groupBy: [Dimension.URL, Dimension.SECTION, Dimension.DEVICE_TYPE],
          filters: [{ dimension: Dimension.USER_TYPE, operator: FilterOperator.NEQ, values: ['new'] }],
          metrics: [Metric.UNIQUE_USERS, Metric.CPM],
          order: { metric: Metric.CPM, sort: SortDirection.ASC },
          limit: 500,
        }),
      ),
    ).toEqual([]);
  });

  it('requires exactly one of last and range', () => {
    expect(paths(query({ dates: {} }))).toEqual(['query.dates']);
    expect(paths(query({ dates: { last: null, range: null } }))).toEqual(['query.dates']);
    expect(paths(query({ dates: { last: { number: 1, unit: TimeUnit.DAY }, range: { start: '2026-11-01', end: '2026-11-02' } } }))).toEqual(
      ['query.dates'],
    );
  });

  it('requires last.number >= 1', () => {
    expect(validateDashboardQuery(query({ dates: { last: { number: 0, unit: TimeUnit.HOUR } } }))).toEqual([
      { path: 'query.dates.last.number', message: 'must be at least 1 (got 0)' },
    ]);
  });

  it('requires readable range ends, start not after end', () => {
    expect(paths(query({ dates: { range: { start: '2026-02-30', end: 'yesterday' } } }))).toEqual([
      'query.dates.range.start',
      'query.dates.range.end',
    ]);
    expect(paths(query({ dates: { range: { start: '2026-11-20T10:00:00', end: '2026-11-21' } } }))).toEqual(['query.dates.range.start']);
    expect(paths(query({ dates: { range: { start: '2026-11-21', end: '2026-11-20' } } }))).toEqual(['query.dates.range']);
    // A date-only end includes its whole day.
    expect(paths(query({ dates: { range: { start: '2026-11-20T23:00:00Z', end: '2026-11-20' } } }))).toEqual([]);
    expect(paths(query({ dates: { range: { start: '2026-11-20T10:00:00+02:00', end: '2026-11-20T08:30:00Z' } } }))).toEqual([]);
    expect(paths(query({ dates: { range: { start: '2026-11-20T10:00:00Z', end: '2026-11-20T09:59:59Z' } } }))).toEqual([
      'query.dates.range',
    ]);
  });

  it('requires distinct metrics, at least one, and an order metric among them', () => {
    expect(paths(query({ metrics: [] }))).toEqual(['query.metrics']);
    expect(validateDashboardQuery(query({ metrics: [Metric.CPM, Metric.RPM, Metric.CPM] }))).toEqual([
      { path: 'query.metrics', message: 'must not repeat a metric (repeated: CPM)' },
    ]);
    expect(validateDashboardQuery(query({ order: { metric: Metric.AVERAGE_RFV, sort: SortDirection.DESC } }))).toEqual([
      { path: 'query.order.metric', message: "must be one of the query's metrics (PAGE_VIEWS_TOTAL), got AVERAGE_RFV" },
    ]);
  });

  it('allows at most 3 distinct groupBy dimensions', () => {
    expect(paths(query({ groupBy: [Dimension.URL, Dimension.TITLE, Dimension.AUTHOR, Dimension.DOMAIN] }))).toEqual(['query.groupBy']);
    expect(validateDashboardQuery(query({ groupBy: [Dimension.URL, Dimension.URL] }))).toEqual([
      { path: 'query.groupBy', message: 'must not repeat a dimension (repeated: URL)' },
    ]);
  });

  it('requires filter values and equality operators for DEVICE_TYPE and USER_TYPE', () => {
    expect(
      validateDashboardQuery(
        query({
          filters: [
            { dimension: Dimension.SECTION, operator: FilterOperator.LIKE, values: [] },
            { dimension: Dimension.DEVICE_TYPE, operator: FilterOperator.LIKE, values: ['mob'] },
            { dimension: Dimension.USER_TYPE, operator: FilterOperator.NLIKE, values: ['new'] },
            { dimension: Dimension.DEVICE_TYPE, operator: FilterOperator.EQ, values: ['mobile'] },
          ],
        }),
      ),
    ).toEqual([
      { path: 'query.filters[0].values', message: 'must contain at least one value' },
      { path: 'query.filters[1].operator', message: 'DEVICE_TYPE allows only EQ and NEQ (got LIKE)' },
      { path: 'query.filters[2].operator', message: 'USER_TYPE allows only EQ and NEQ (got NLIKE)' },
    ]);
  });

  it('rejects NEW_ARTICLES with traffic dimensions in groupBy or filters, not with article dimensions', () => {
    const problems = validateDashboardQuery(
      query({
        metrics: [Metric.NEW_ARTICLES],
        groupBy: [Dimension.SECTION, Dimension.SOURCE, Dimension.DEVICE_TYPE],
        filters: [
          { dimension: Dimension.CAMPAIGN_INTERNAL, operator: FilterOperator.EQ, values: ['x'] },
          { dimension: Dimension.AUTHOR, operator: FilterOperator.EQ, values: ['y'] },
        ],
      }),
    );
    expect(problems.map((problem) => problem.path)).toEqual(['query.groupBy', 'query.filters[0].dimension']);
    expect(problems[0].message).toBe('NEW_ARTICLES cannot be combined with traffic dimensions (SOURCE, DEVICE_TYPE); query it separately');
    expect(paths(query({ metrics: [Metric.NEW_ARTICLES], groupBy: [Dimension.SECTION, Dimension.AUTHOR] }))).toEqual([]);
  });

  it('bounds limit to 1..REPORTING_MAX_ROWS (default 500) and from to >= 0, and treats null as not given', () => {
    expect(paths(query({ limit: 0, from: -1 }))).toEqual(['query.limit', 'query.from']);
    expect(paths(query({ limit: 500 }))).toEqual([]);
    expect(validateDashboardQuery(query({ limit: 501 }))).toEqual([
      {
        path: 'query.limit',
        message: 'must be from 1 to 500, the most rows one query may ask for (REPORTING_MAX_ROWS); page with from (got 501)',
      },
    ]);
    expect(paths(query({ limit: null, from: null }))).toEqual([]);
  });

  it('takes the rows cap as an option, up to the contract maximum of 1000', () => {
    expect(validateDashboardQuery(query({ limit: 1000 }), { maxRows: 1000 })).toEqual([]);
    expect(validateDashboardQuery(query({ limit: 1001 }), { maxRows: 1000 }).map((problem) => problem.message)).toEqual([
      'must be from 1 to 1000, the most rows one query may ask for (REPORTING_MAX_ROWS); page with from (got 1001)',
    ]);
    expect(validateDashboardQuery(query({ limit: 21 }), { maxRows: 20 }).map((problem) => problem.path)).toEqual(['query.limit']);
  });

  it('refuses windows longer than the upstream allows (3660 days), however they are written', () => {
    const tooLong = { path: 'query.dates.last.number', message: 'the window must not exceed 3660 days' };
    expect(validateDashboardQuery(query({ dates: { last: { number: 99_999_999, unit: TimeUnit.DAY } } }))).toEqual([tooLong]);
    expect(validateDashboardQuery(query({ dates: { last: { number: 3661, unit: TimeUnit.DAY } } }))).toEqual([tooLong]);
    expect(validateDashboardQuery(query({ dates: { last: { number: 123, unit: TimeUnit.MONTH } } }))).toEqual([tooLong]);
    expect(paths(query({ dates: { last: { number: 3660, unit: TimeUnit.DAY } } }))).toEqual([]);
    expect(paths(query({ dates: { last: { number: 122, unit: TimeUnit.MONTH } } }))).toEqual([]);
    expect(paths(query({ dates: { last: { number: 5_270_400, unit: TimeUnit.MINUTE } } }))).toEqual([]);
    expect(validateDashboardQuery(query({ dates: { range: { start: '1900-01-01', end: '9999-12-31' } } }))).toEqual([
      { path: 'query.dates.range', message: 'the window must not exceed 3660 days' },
    ]);
    expect(paths(query({ dates: { range: { start: '2016-01-01T00:00:00Z', end: '2026-01-08T00:00:00Z' } } }))).toEqual([]);
    expect(paths(query({ dates: { range: { start: '2016-01-01T00:00:00Z', end: '2026-01-08T00:00:00.001Z' } } }))).toEqual([
      'query.dates.range',
    ]);
  });

  it('refuses a granularity the window is too long for: REALTIME up to 24 h, HOURLY up to 31 days, DAILY always', () => {
    const granular = (dates: DashboardQueryInput['dates'], granularity: Granularity) => paths(query({ dates, granularity }));
    expect(granular({ last: { number: 24, unit: TimeUnit.HOUR } }, Granularity.REALTIME)).toEqual([]);
    expect(granular({ last: { number: 1441, unit: TimeUnit.MINUTE } }, Granularity.REALTIME)).toEqual(['query.granularity']);
    expect(granular({ last: { number: 31, unit: TimeUnit.DAY } }, Granularity.HOURLY)).toEqual([]);
    expect(granular({ last: { number: 5, unit: TimeUnit.WEEK } }, Granularity.HOURLY)).toEqual(['query.granularity']);
    expect(granular({ last: { number: 3660, unit: TimeUnit.DAY } }, Granularity.DAILY)).toEqual([]);
    // A date-only end includes its whole day: one date is 24 h less a millisecond, two dates are more than 24 h.
    expect(granular({ range: { start: '2026-11-01', end: '2026-11-01' } }, Granularity.REALTIME)).toEqual([]);
    expect(granular({ range: { start: '2026-11-01', end: '2026-11-02' } }, Granularity.REALTIME)).toEqual(['query.granularity']);
    expect(
      validateDashboardQuery(query({ dates: { last: { number: 30, unit: TimeUnit.DAY } }, granularity: Granularity.REALTIME })),
    ).toEqual([
      {
        path: 'query.granularity',
        message: 'REALTIME is not available for this window (REALTIME up to 24 hours, HOURLY up to 31 days); available: HOURLY, DAILY',
      },
    ]);
  });

  it('reports the window length once, without a granularity problem on top', () => {
    expect(paths(query({ dates: { range: { start: '1900-01-01', end: '9999-12-31' } }, granularity: Granularity.REALTIME }))).toEqual([
      'query.dates.range',
    ]);
  });

  it('reports every problem of a query at once', () => {
    expect(
      paths(
        query({
          dates: { last: { number: -2, unit: TimeUnit.DAY } },
          metrics: [],
          groupBy: [Dimension.URL, Dimension.URL],
          filters: [{ dimension: Dimension.URL, operator: FilterOperator.EQ, values: [] }],
          limit: 5000,
        }),
      ),
    ).toEqual(['query.dates.last.number', 'query.metrics', 'query.groupBy', 'query.filters[0].values', 'query.limit']);
  });
});

describe('toDashboardQueryBody', () => {
  it('fills the mandatory fields and the default order (first metric, DESC)', () => {
    expect(
      toDashboardQueryBody({ dates: { last: { number: 7, unit: TimeUnit.WEEK } }, metrics: [Metric.AVERAGE_RFV, Metric.CPM] }),
    ).toEqual({
      dates: { last: { number: 7, dimension: 'week' } },
      filters: [],
      groupBy: [],
      metrics: ['averageRFV', 'CPM'],
      order: { metric: 'averageRFV', sort: 'DESC' },
    });
  });

  it('passes filters, grouping, order, granularity and paging in upstream names', () => {
    expect(
      toDashboardQueryBody(
        query({
          dates: { range: { start: '2026-11-01', end: '2026-11-20T12:00:00Z' } },
          filters: [{ dimension: Dimension.SOURCE_INTERNAL, operator: FilterOperator.NLIKE, values: ['bot', 'spam'] }],
          groupBy: [Dimension.MEDIUM_INTERNAL, Dimension.URL],
          metrics: [Metric.CUMULATIVE_RFV, Metric.PAGE_VIEWS_PER_USER],
          order: { metric: Metric.PAGE_VIEWS_PER_USER, sort: SortDirection.ASC },
          granularity: Granularity.REALTIME,
          limit: 25,
          from: 50,
        }),
      ),
    ).toEqual({
      dates: { range: { start: '2026-11-01', end: '2026-11-20T12:00:00Z' } },
      filters: [{ filter: 'sourceInternal', op: 'nlike', value: ['bot', 'spam'] }],
      groupBy: ['mediumInternal', 'url'],
      metrics: ['cumulativeRFV', 'pageViewsPerUser'],
      order: { metric: 'pageViewsPerUser', sort: 'ASC' },
      granularity: 'realtime',
      limit: 25,
      from: 50,
    });
  });

  it('leaves out paging and granularity given as null', () => {
    const body = toDashboardQueryBody(query({ granularity: null, limit: null, from: null }));
    expect(Object.keys(body).sort()).toEqual(['dates', 'filters', 'groupBy', 'metrics', 'order']);
  });
});
