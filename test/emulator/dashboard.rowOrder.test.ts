import { NOW, MINUTE, VIEWS, fixtureStore, only, query, rowTotals, view } from './dashboard.fixtures';

/*
 * When page views were appended in time order the engine binary-searches the
 * window instead of scanning every row (emulator/dashboard/rowRange.ts). Both
 * paths must give the same answers, also after an out-of-order append.
 */

const inTimeOrder = [...VIEWS].sort((a, b) => a.time - b.time);
const outOfOrder = [...inTimeOrder].reverse();

const requests: Record<string, unknown>[] = [
  {},
  { dates: { last: { number: 15, dimension: 'minute' } } },
  {
    dates: { last: { number: 2, dimension: 'hour' } },
    groupBy: ['url'],
    metrics: ['uniqueUsers', 'pageViewsTotal'],
    order: { metric: 'uniqueUsers', sort: 'DESC' },
  },
  { dates: { range: { start: '2026-11-20', end: '2026-11-21' } }, ...only('revenueTotal', 'ASC') },
  {
    dates: { last: { number: 3, dimension: 'day' } },
    metrics: ['uniqueUsers', 'RPM'],
    order: { metric: 'RPM', sort: 'DESC' },
    granularity: 'hourly',
  },
  { dates: { last: { number: 3, dimension: 'day' } }, groupBy: ['section'], ...only('pageViewsPerUser') },
];

test.each(requests)('time-ordered and unordered stores agree on %j', (request) => {
  expect(query(fixtureStore(inTimeOrder), request)).toEqual(query(fixtureStore(outOfOrder), request));
});

test('a window between two rows, and one after the last row, are empty', () => {
  const sorted = fixtureStore(inTimeOrder);
  // v3 is 3 h old, v2 70 min: nothing between 2 h and 100 min ago
  const iso = (time: number) => new Date(time).toISOString();
  const between = query(sorted, { dates: { range: { start: iso(NOW - 120 * MINUTE), end: iso(NOW - 100 * MINUTE) } } });
  expect(between[0].total).toBe(0);
  expect(query(sorted, {}, NOW + 2 * 86_400_000)[0].total).toBe(0);
});

test('appending rows out of order after a query keeps answers right', () => {
  const store = fixtureStore(inTimeOrder);
  expect(query(store)[0].total).toBe(5);
  // A row from the future, then an older one: a binary search would stop at the first.
  store.addPageViews([view({ article: 2, client: 'early-bird', time: NOW + 10 * MINUTE })]);
  expect(query(store)[0].total).toBe(5);
  store.addPageViews([view({ article: 2, client: 'late', time: NOW - 5 * MINUTE })]);
  const [pageViews] = query(store, { groupBy: ['url'], dates: { last: { number: 1, dimension: 'hour' } } });
  expect(pageViews.total).toBe(3); // v0, v1 and the late one
  expect(Object.values(rowTotals(pageViews)).sort()).toEqual([1, 2]);
});
