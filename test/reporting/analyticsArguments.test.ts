import { toTopArticlesRequest, topArticlesSpec, validateTopArticles } from '../../src/reporting/analytics/topArticles';
import { alignInstant, resolveWindow, validateWindow } from '../../src/reporting/dashboard/analyticsWindow';
import { canonicalMetrics, tableSpec } from '../../src/reporting/tables/tableSpec';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 30, 250);
const DAY_MS = 86_400_000;

describe('windows', () => {
  it('pins a relative window to the instant and keeps a range as given', () => {
    const week = resolveWindow({ last: { number: 7, unit: 'day' } }, NOW);
    expect(week).toEqual({
      key: JSON.stringify(week.dates),
      dates: { range: { start: new Date(NOW - 7 * DAY_MS).toISOString(), end: new Date(NOW).toISOString() } },
      from: NOW - 7 * DAY_MS,
      to: NOW,
    });
    expect(resolveWindow({ range: { start: '2026-11-01', end: '2026-11-02' } }, NOW)).toMatchObject({
      from: Date.UTC(2026, 10, 1),
      to: Date.UTC(2026, 10, 3) - 1,
    });
  });

  it('aligns the instant down to whole steps, or not at all with 0', () => {
    expect(alignInstant(NOW, 60)).toBe(Date.UTC(2026, 10, 20, 12, 0, 0));
    expect(alignInstant(NOW, 0)).toBe(NOW);
  });

  it('reports window problems against the given argument', () => {
    expect(validateWindow({ last: { number: 0, unit: 'day' } }, 'window')).toEqual([
      { path: 'window.last.number', message: 'must be at least 1 (got 0)' },
    ]);
    expect(validateWindow({}, 'window')).toEqual([{ path: 'window', message: 'give exactly one of last and range' }]);
  });
});

describe('topArticles arguments and table specs', () => {
  it('fills defaults for explicit nulls and lists every problem', () => {
    expect(toTopArticlesRequest({ window: null, metric: null, limit: null })).toEqual({
      window: { last: { number: 1, unit: 'day' } },
      metric: 'pageViewsTotal',
      limit: 10,
    });
    const request = toTopArticlesRequest({ limit: 0, section: '', window: { last: { number: -1, unit: 'hour' } } });
    expect(validateTopArticles(request).map((problem) => problem.path)).toEqual(['window.last.number', 'limit', 'section']);
  });

  it('gives equal questions one table, whatever the argument order or an explicit null', () => {
    const ranking = topArticlesSpec(toTopArticlesRequest({ window: { last: { unit: 'day', number: 7 } }, limit: 5 }));
    expect(ranking.key).toBe(tableSpec({ last: { number: 7, unit: 'day' } }, {}, 'pageViewsTotal').key);
    expect(topArticlesSpec(toTopArticlesRequest({ section: 'Politics' })).key).not.toBe(topArticlesSpec(toTopArticlesRequest({})).key);
    expect(canonicalMetrics(['revenueTotal', 'pageViewsTotal', 'averageScroll', 'pageViewsTotal'])).toEqual([
      'pageViewsTotal',
      'averageScroll',
      'revenueTotal',
    ]);
  });
});
