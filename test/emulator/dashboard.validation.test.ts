import { runDashboardQuery } from '../../emulator/dashboard';
import { NOW, body, fixtureStore } from './dashboard.fixtures';

const store = fixtureStore();

/** The error paths of a request that must be refused (or [] when it was accepted). */
function errorPaths(request: unknown): string[] {
  const outcome = runDashboardQuery(store, request, NOW);
  if (outcome.ok) return [];
  expect(outcome.status).toBe(400);
  expect(outcome.body.msg).toBe('Invalid params');
  for (const error of outcome.body.errors ?? []) expect(error.message).toEqual(expect.any(String));
  return (outcome.body.errors ?? []).map((e) => e.path);
}

const filter = (overrides: Record<string, unknown>) => ({
  filter: 'source',
  op: 'eq',
  value: ['google'],
  ...overrides,
});

describe('dashboard query validation', () => {
  test('a valid body is accepted; unknown fields are ignored and null optionals take defaults', () => {
    expect(errorPaths(body({ extra: { anything: true }, granularity: null, limit: null, from: null }))).toEqual([]);
  });

  test.each([null, [], 'query', 42])('a body that is not an object (%j)', (request) => {
    expect(errorPaths(request)).toEqual(['body']);
  });

  test('the five mandatory fields are all reported at once', () => {
    expect(errorPaths({})).toEqual(['dates', 'filters', 'groupBy', 'metrics', 'order']);
    expect(errorPaths({ dates: null, filters: null, groupBy: {}, metrics: 'pageViewsTotal', order: [] })).toEqual([
      'dates',
      'filters',
      'groupBy',
      'metrics',
      'order',
    ]);
  });

  test.each([
    [{}, 'dates'],
    [{ last: { number: 1, dimension: 'day' }, range: { start: '2026-11-01', end: '2026-11-02' } }, 'dates'],
    [{ last: 'yesterday' }, 'dates.last'],
    [{ last: { number: 0, dimension: 'day' } }, 'dates.last.number'],
    [{ last: { number: 1.5, dimension: 'day' } }, 'dates.last.number'],
    [{ last: { number: '3', dimension: 'day' } }, 'dates.last.number'],
    [{ last: { number: 2 ** 60, dimension: 'minute' } }, 'dates.last.number'],
    [{ last: { number: 3661, dimension: 'day' } }, 'dates.last.number'],
    [{ last: { number: 523, dimension: 'week' } }, 'dates.last.number'],
    [{ last: { number: 1, dimension: 'year' } }, 'dates.last.dimension'],
    [{ last: { number: 1 } }, 'dates.last.dimension'],
    [{ range: '2026-11-01/2026-11-02' }, 'dates.range'],
    [{ range: { start: 'yesterday', end: '2026-11-02' } }, 'dates.range.start'],
    [{ range: { start: '2026-11-01', end: '2026-02-30' } }, 'dates.range.end'],
    [{ range: { start: '2026-13-01', end: '2026-11-02' } }, 'dates.range.start'],
    [{ range: { start: '2026-11-01T25:00:00Z', end: '2026-11-02' } }, 'dates.range.start'],
    [{ range: { start: '2026-11-01T10:00:00+24:00', end: '2026-11-02' } }, 'dates.range.start'],
    [{ range: { start: 20261101, end: '2026-11-02' } }, 'dates.range.start'],
    [{ range: { start: '2026-11-03', end: '2026-11-02' } }, 'dates.range'],
    [{ range: { start: '2010-01-01', end: '2026-11-02' } }, 'dates.range'],
  ])('dates %j → %s', (dates, path) => {
    expect(errorPaths(body({ dates }))).toEqual([path]);
  });

  test('both range bounds are reported together', () => {
    const paths = errorPaths(body({ dates: { range: { start: 'x', end: 'y' } } }));
    expect(paths).toEqual(['dates.range.start', 'dates.range.end']);
  });

  test('windows up to ten years, and dates with or without a time, are accepted', () => {
    expect(errorPaths(body({ dates: { last: { number: 3660, dimension: 'day' } } }))).toEqual([]);
    expect(errorPaths(body({ dates: { last: { number: 120, dimension: 'month' } } }))).toEqual([]);
    const range = { start: '2024-02-29', end: '2026-11-22T10:00:00.123+02:00' };
    expect(errorPaths(body({ dates: { range } }))).toEqual([]);
  });

  test.each([
    ['filters', 'all'],
    [['source=google'], 'filters[0]'],
    [[filter({}), filter({ filter: 'colour' })], 'filters[1].filter'],
    [[filter({ op: 'contains' })], 'filters[0].op'],
    [[filter({ filter: 'deviceType', op: 'like' })], 'filters[0].op'],
    [[filter({ filter: 'userType', op: 'nlike' })], 'filters[0].op'],
    [[filter({ value: [] })], 'filters[0].value'],
    [[filter({ value: 'google' })], 'filters[0].value'],
    [[filter({ value: undefined })], 'filters[0].value'],
    [[filter({ value: ['google', true] })], 'filters[0].value[1]'],
    [[filter({ value: ['google', null] })], 'filters[0].value[1]'],
  ])('filters %j → %s', (filters, path) => {
    expect(errorPaths(body({ filters }))).toEqual([path === 'all' ? 'filters' : path]);
  });

  test('every problem of one filter is reported', () => {
    expect(errorPaths(body({ filters: [{ filter: 'x', op: 'y', value: [{}] }] }))).toEqual([
      'filters[0].filter',
      'filters[0].op',
      'filters[0].value[0]',
    ]);
  });

  test('the old key names dimension, operator and values are a 400 naming each of them', () => {
    const outcome = runDashboardQuery(store, body({ filters: [{ dimension: 'source', operator: 'eq', values: ['google'] }] }), NOW);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.status).toBe(400);
    const errors = outcome.body.errors ?? [];
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(['filters[0].dimension', 'filters[0].operator', 'filters[0].values']));
    const byPath = new Map(errors.map((e) => [e.path, e.message]));
    expect(byPath.get('filters[0].dimension')).toMatch(/unknown key "dimension".*\{filter, op, value\}.*use "filter"/);
    expect(byPath.get('filters[0].operator')).toMatch(/unknown key "operator".*use "op"/);
    expect(byPath.get('filters[0].values')).toMatch(/unknown key "values".*use "value"/);
  });

  test('any other key of a filter is a 400 naming it', () => {
    expect(errorPaths(body({ filters: [filter({ negate: true })] }))).toEqual(['filters[0].negate']);
  });

  test('numbers are accepted as values and compare as text', () => {
    const asNumber = runDashboardQuery(store, body({ filters: [filter({ filter: 'url', op: 'like', value: [2] })] }), NOW);
    const asText = runDashboardQuery(store, body({ filters: [filter({ filter: 'url', op: 'like', value: ['2'] })] }), NOW);
    expect(asNumber.ok).toBe(true);
    expect(asNumber).toEqual(asText);
  });

  test('deviceType and userType take eq and neq', () => {
    const filters = [filter({ filter: 'deviceType', op: 'neq' }), filter({ filter: 'userType', op: 'eq' })];
    expect(errorPaths(body({ filters }))).toEqual([]);
  });

  test.each([
    [['url', 'source', 'deviceType', 'section'], ['groupBy']],
    [['url', 'colour'], ['groupBy[1]']],
    [['url', 'url'], ['groupBy[1]']],
    [[7], ['groupBy[0]']],
  ])('groupBy %j → %j', (groupBy, paths) => {
    expect(errorPaths(body({ groupBy }))).toEqual(paths);
  });

  test.each([
    [[], ['metrics']],
    [['pageViewsTotal', 'visits'], ['metrics[1]']],
    [['pageViewsTotal', 'uniqueUsers', 'pageViewsTotal'], ['metrics']],
  ])('metrics %j → %j', (metrics, paths) => {
    expect(errorPaths(body({ metrics }))).toEqual(paths);
  });

  test.each([
    [{ metric: 'pageViewsTotal', sort: 'desc' }, ['order.sort']],
    [{ metric: 'pageViewsTotal' }, ['order.sort']],
    [{ metric: 'uniqueUsers', sort: 'ASC' }, ['order.metric']],
    [{ metric: 'visits', sort: 'ASC' }, ['order.metric']],
    [{ sort: 'ASC' }, ['order.metric']],
  ])('order %j → %j', (order, paths) => {
    expect(errorPaths(body({ order }))).toEqual(paths);
  });

  test.each([
    [{ granularity: 'weekly' }, ['granularity']],
    [{ granularity: 'realtime', dates: { last: { number: 2, dimension: 'day' } } }, ['granularity']],
    [{ granularity: 'hourly', dates: { last: { number: 32, dimension: 'day' } } }, ['granularity']],
    [{ limit: 0 }, ['limit']],
    [{ limit: 1001 }, ['limit']],
    [{ limit: 2.5 }, ['limit']],
    [{ limit: '10' }, ['limit']],
    [{ from: -1 }, ['from']],
    [{ from: 0.5 }, ['from']],
    [{ from: 2 ** 60 }, ['from']],
  ])('%j → %j', (overrides, paths) => {
    expect(errorPaths(body(overrides))).toEqual(paths);
  });

  test('limit 1000 and any whole from are accepted', () => {
    expect(errorPaths(body({ limit: 1000, from: 123456 }))).toEqual([]);
  });

  test('newArticles with traffic dimensions is refused where they appear', () => {
    const paths = errorPaths(
      body({
        metrics: ['newArticles'],
        order: { metric: 'newArticles', sort: 'DESC' },
        groupBy: ['url', 'source'],
        filters: [filter({ filter: 'userType' }), filter({ filter: 'section' })],
      }),
    );
    expect(paths).toEqual(['groupBy[1]', 'filters[0].filter']);
  });

  test('every error of a thoroughly bad request is collected', () => {
    const paths = errorPaths({
      dates: { last: { number: -1, dimension: 'fortnight' } },
      filters: [filter({}), filter({ op: 'is' }), filter({ filter: 'deviceType', op: 'like', value: [] })],
      groupBy: ['url', 'url'],
      metrics: ['pageViewsTotal', 'pageViewsTotal', 'clicks'],
      order: { metric: 'bounces', sort: 'UP' },
      granularity: 'minutely',
      limit: 5000,
      from: -3,
    });
    expect(paths).toEqual([
      'dates.last.number',
      'dates.last.dimension',
      'filters[1].op',
      'filters[2].op',
      'filters[2].value',
      'groupBy[1]',
      'metrics[2]',
      'metrics',
      'order.sort',
      'order.metric',
      'granularity',
      'limit',
      'from',
    ]);
  });

  test('error messages name what arrived, and stay short', () => {
    const outcome = runDashboardQuery(store, body({ metrics: ['x'.repeat(10_000)] }), NOW);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    const message = outcome.body.errors?.[0].message ?? '';
    expect(message).toContain('"xxxx');
    expect(message.length).toBeLessThan(600);
  });
});
