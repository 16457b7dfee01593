/**
 * How an answer grouped by url becomes a table: which articles it speaks for.
 * Issue 29 item 8: a cold answer cut by its limit was read as speaking for
 * every url it was narrowed to, so each article it left out read as 0.
 */
import { readCell, tabulate } from '../../src/reporting/tables/table';
import type { DashboardMetricResultWire } from '../../src/kernel/wire';

function answer(rows: [string, number][]): DashboardMetricResultWire[] {
  return [
    {
      metric: 'pageViewsTotal',
      total: 0,
      granularity: 'daily',
      availableGranularities: ['daily'],
      actualData: { values: rows.map(([url, total]) => ({ key: url, total, items: [{ id: url, value: url, type: 'url' }] })), data: [] },
    },
  ];
}

const SOURCE = { key: 'week', from: 0, to: 1, fetchedAt: 1 };

it('a cold answer with fewer rows than its limit speaks for every url it was narrowed to: an absent one had no views', () => {
  const table = tabulate(answer([['a', 5]]), { ...SOURCE, limit: 3, urls: ['a', 'b', 'c'] });
  expect(readCell(table, 'a', 'pageViewsTotal')).toBe(5);
  expect(readCell(table, 'c', 'pageViewsTotal')).toBe(0);
});

it('a cold answer cut by its limit speaks only for the urls it has rows of: an absent one is unknown, never 0', () => {
  const table = tabulate(
    answer([
      ['a', 5],
      ['b', 4],
    ]),
    { ...SOURCE, limit: 2, urls: ['a', 'b', 'c'] },
  );
  expect(readCell(table, 'b', 'pageViewsTotal')).toBe(4);
  expect(readCell(table, 'c', 'pageViewsTotal')).toBeUndefined();
  expect(table.urls).toEqual(new Set(['a', 'b']));
});

it('a whole table cut by its limit is full: an article it lacks is unknown', () => {
  const table = tabulate(
    answer([
      ['a', 5],
      ['b', 4],
    ]),
    { ...SOURCE, limit: 2 },
  );
  expect(readCell(table, 'z', 'pageViewsTotal')).toBeUndefined();
});
