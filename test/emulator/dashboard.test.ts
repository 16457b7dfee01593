import { runDashboardQuery, METRICS, type Metric } from '../../emulator/dashboard';
import { A0, A1, A2, A3, DAY, NOW, VIEWS, fixtureStore, only, query, resultOf, rowTotals, view } from './dashboard.fixtures';

/*
 * Expected numbers are added up by hand from the rows in dashboard.fixtures.ts.
 * Over the last day those are v0..v4:
 *   v0 A0 c1 dur 60  scroll 50  ads 2 rev 3000 rfv 1.5  google      mobile  new
 *   v1 A0 c2 dur 30  scroll 100 ads 1 rev 1000 rfv 0.5  facebook    desktop returning
 *   v2 A1 c1 dur 120 scroll 80  ads 3 rev 4500 rfv 2    google      mobile  returning
 *   v3 A2 c3 dur 0   scroll 0   ads 0 rev 0    rfv 0.25 direct      tablet  subscriber
 *   v4 A0 c1 dur 90  scroll 70  ads 2 rev 2500 rfv 1.25 Google News mobile  subscriber
 * (v5, A1 c4, is two days old.) A0 and A3 were published within the day.
 */

const store = fixtureStore();

function totals(metrics: readonly Metric[], overrides: Record<string, unknown> = {}): Record<string, number> {
  const results = query(store, { metrics, order: { metric: metrics[0], sort: 'DESC' }, ...overrides });
  return Object.fromEntries(results.map((r) => [r.metric, r.total]));
}

describe('metric math', () => {
  test('every metric over the last day', () => {
    const pageViews = 5;
    const users = 3; // c1, c2, c3
    const duration = 60 + 30 + 120 + 0 + 90;
    const revenue = (3000 + 1000 + 4500 + 0 + 2500) / 1e6;
    const ads = 2 + 1 + 3 + 0 + 2;
    const rfv = 1.5 + 0.5 + 2 + 0.25 + 1.25;
    const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
    expect(totals(METRICS)).toEqual({
      pageViewsTotal: pageViews,
      uniqueUsers: users,
      totalDuration: duration,
      averageDurationPerUser: round4(duration / users),
      averageDurationPerPage: round4(duration / pageViews),
      pageViewsPerUser: round4(pageViews / users),
      averageScroll: round4((50 + 100 + 80 + 0 + 70) / pageViews),
      averageRFV: round4(rfv / pageViews),
      cumulativeRFV: rfv,
      revenueTotal: revenue,
      adsImpressions: ads,
      CPM: round4((revenue / ads) * 1000),
      RPM: round4((revenue / users) * 1000),
      adsPerPage: round4(ads / pageViews),
      newArticles: 2, // A0 and A3
    });
  });

  test('ratios with a zero denominator are 0, not NaN', () => {
    // Only v3 (A2) matches: no ads, no duration.
    const result = totals(['CPM', 'adsPerPage', 'averageDurationPerPage'], {
      filters: [{ filter: 'url', op: 'eq', value: [A2] }],
    });
    expect(result).toEqual({ CPM: 0, adsPerPage: 0, averageDurationPerPage: 0 });
    const empty = totals(['averageScroll', 'RPM', 'pageViewsPerUser'], {
      filters: [{ filter: 'source', op: 'eq', value: ['nowhere'] }],
    });
    expect(empty).toEqual({ averageScroll: 0, RPM: 0, pageViewsPerUser: 0 });
  });

  test('the window follows now and the unit', () => {
    expect(totals(['pageViewsTotal'], { dates: { last: { number: 3, dimension: 'day' } } }).pageViewsTotal).toBe(6);
    expect(totals(['pageViewsTotal'], { dates: { last: { number: 15, dimension: 'minute' } } }).pageViewsTotal).toBe(1);
    expect(totals(['pageViewsTotal'], { dates: { last: { number: 2, dimension: 'hour' } } }).pageViewsTotal).toBe(3);
    expect(totals(['pageViewsTotal'], { dates: { last: { number: 1, dimension: 'week' } } }).pageViewsTotal).toBe(6);
    expect(totals(['newArticles'], { dates: { last: { number: 1, dimension: 'month' } } }).newArticles).toBe(3);
  });

  test('windows include both ends', () => {
    const start = NOW - DAY;
    const edges = fixtureStore([
      view({ article: 0, client: 'x', time: start - 1 }),
      view({ article: 0, client: 'y', time: start }),
      view({ article: 0, client: 'z', time: NOW }),
      view({ article: 0, client: 'w', time: NOW + 1 }),
    ]);
    expect(query(edges)[0].total).toBe(2);
  });

  test('range: dates cover whole UTC days, date-times are taken as given', () => {
    const range = (start: string, end: string) => totals(['pageViewsTotal'], { dates: { range: { start, end } } }).pageViewsTotal;
    // NOW is 2026-11-22 12:34:56; v5 is on 2026-11-20.
    expect(range('2026-11-22', '2026-11-22')).toBe(5);
    expect(range('2026-11-20', '2026-11-21')).toBe(1);
    expect(range('2026-11-20', '2026-11-22')).toBe(6);
    // v0 12:24:56, v1 12:14:56
    expect(range('2026-11-22T12:14:56Z', '2026-11-22T12:24:56Z')).toBe(2);
    expect(range('2026-11-22T13:14:56+01:00', '2026-11-22 12:20:00')).toBe(1);
  });
});

describe('filters', () => {
  const pageViews = (...filters: unknown[]) => totals(['pageViewsTotal'], { filters }).pageViewsTotal;
  const f = (filter: string, op: string, ...value: string[]) => ({ filter, op, value });

  test('eq and neq on traffic dimensions; values are OR-ed', () => {
    expect(pageViews(f('source', 'eq', 'google'))).toBe(2); // v0, v2
    expect(pageViews(f('source', 'eq', 'google', 'direct'))).toBe(3); // + v3
    expect(pageViews(f('source', 'neq', 'google', 'facebook'))).toBe(2); // v3, v4
    expect(pageViews(f('deviceType', 'eq', 'mobile'))).toBe(3); // v0, v2, v4
    expect(pageViews(f('userType', 'neq', 'new'))).toBe(4);
  });

  test('like and nlike are case-insensitive substring matches', () => {
    expect(pageViews(f('source', 'like', 'GOOGLE'))).toBe(3); // v0, v2, v4 (Google News)
    expect(pageViews(f('source', 'nlike', 'goo', 'face'))).toBe(1); // v3
    expect(pageViews(f('title', 'like', 'budget'))).toBe(3); // A0's views
    expect(pageViews(f('url', 'like', 'sport.example'))).toBe(1);
    expect(pageViews(f('domain', 'nlike', 'sport'))).toBe(4);
  });

  test('eq is exact', () => {
    expect(pageViews(f('source', 'eq', 'Google'))).toBe(0);
    expect(pageViews(f('title', 'eq', 'Budget vote'))).toBe(3);
  });

  test('multi-valued section and author match when any value matches', () => {
    expect(pageViews(f('section', 'eq', 'Economy'))).toBe(3); // A0 is Politics and Economy
    expect(pageViews(f('section', 'neq', 'Sport'))).toBe(3);
    expect(pageViews(f('author', 'eq', 'Bob'))).toBe(4); // A0, A1
    expect(pageViews(f('author', 'nlike', 'bo'))).toBe(1); // A2 (Cid)
    expect(pageViews(f('section', 'like', 'pol', 'spo'))).toBe(5);
  });

  test('filters are AND-ed, across traffic and article dimensions', () => {
    expect(pageViews(f('source', 'like', 'google'), f('url', 'eq', A0))).toBe(2); // v0, v4
    expect(pageViews(f('url', 'eq', A1, A2), f('deviceType', 'neq', 'tablet'))).toBe(1); // v2
    expect(pageViews(f('section', 'eq', 'Sport'), f('section', 'eq', 'Politics'))).toBe(0);
  });

  test('filters apply to uniqueUsers, the series and the rows alike', () => {
    const results = query(store, {
      filters: [f('deviceType', 'eq', 'mobile')],
      groupBy: ['url'],
      metrics: ['uniqueUsers'],
      order: { metric: 'uniqueUsers', sort: 'DESC' },
      granularity: 'hourly',
    });
    expect(results[0].total).toBe(1); // only c1 on mobile
    expect(rowTotals(results[0])).toEqual({ [A0]: 1, [A1]: 1 });
    expect(results[0].actualData.data.reduce((sum, p) => sum + p.value, 0)).toBe(3); // v0, v2, v4: three hours
  });
});

describe('groupBy', () => {
  test('one dimension: rows, items and per-group metrics', () => {
    const [views, users] = query(store, { groupBy: ['url'], metrics: ['pageViewsTotal', 'uniqueUsers'] });
    expect(rowTotals(views)).toEqual({ [A0]: 3, [A1]: 1, [A2]: 1 });
    expect(rowTotals(users)).toEqual({ [A0]: 2, [A1]: 1, [A2]: 1 });
    expect(views.actualData.values[0].items).toEqual([{ id: A0, value: A0, type: 'url' }]);
  });

  test('rows are ordered by the order metric, then by key, in both directions', () => {
    const rows = (sort: string) => query(store, { groupBy: ['url'], order: { metric: 'pageViewsTotal', sort } })[0].actualData.values;
    const desc = rows('DESC');
    const asc = rows('ASC');
    const tied = [desc[1].key, desc[2].key]; // A1 and A2 have one view each
    expect(desc[0].items[0].value).toBe(A0);
    expect(tied).toEqual([...tied].sort());
    expect(asc.map((r) => r.key)).toEqual([...tied, desc[0].key]);
  });

  test('every metric lists the same groups in the order of the order metric', () => {
    const results = query(store, {
      groupBy: ['url'],
      metrics: ['totalDuration', 'pageViewsTotal', 'averageScroll'],
      order: { metric: 'totalDuration', sort: 'ASC' },
    });
    const urls = results.map((r) => r.actualData.values.map((row) => row.items[0].value));
    // totalDuration: A2 0, A0 60+30+90, A1 120
    expect(urls).toEqual([
      [A2, A1, A0],
      [A2, A1, A0],
      [A2, A1, A0],
    ]);
    const a0Scroll = Math.round(((50 + 100 + 70) / 3) * 1e4) / 1e4;
    expect(rowTotals(resultOf(results, 'averageScroll'))).toEqual({ [A0]: a0Scroll, [A1]: 80, [A2]: 0 });
  });

  test('keys are stable, distinct, and "total" without groupBy', () => {
    const keys = (overrides = {}) => query(store, { groupBy: ['url', 'deviceType'], ...overrides })[0].actualData.values.map((r) => r.key);
    const first = keys();
    expect(new Set(first).size).toBe(first.length);
    expect(keys({ dates: { last: { number: 2, dimension: 'day' } } })).toEqual(expect.arrayContaining(first));
    const ungrouped = query(store)[0].actualData.values;
    expect(ungrouped).toEqual([{ key: 'total', total: 5, items: [] }]);
  });

  test('three dimensions: items in groupBy order', () => {
    const [result] = query(store, { groupBy: ['deviceType', 'url', 'source'] });
    expect(rowTotals(result)).toEqual({
      [`mobile|${A0}|google`]: 1,
      [`desktop|${A0}|facebook`]: 1,
      [`mobile|${A1}|google`]: 1,
      [`tablet|${A2}|direct`]: 1,
      [`mobile|${A0}|Google News`]: 1,
    });
    expect(result.actualData.values[0].items.map((i) => i.type)).toEqual(['deviceType', 'url', 'source']);
  });

  test('a view counts once in each of its article’s sections and authors', () => {
    const [bySection] = query(store, { groupBy: ['section'] });
    expect(rowTotals(bySection)).toEqual({ Politics: 3, Economy: 3, Sport: 2 });
    const [users] = query(store, { groupBy: ['section'], ...only('uniqueUsers') });
    expect(rowTotals(users)).toEqual({ Politics: 2, Economy: 2, Sport: 2 }); // Sport: c1 (A1), c3 (A2)
    const [pairs] = query(store, { groupBy: ['section', 'author'] });
    expect(rowTotals(pairs)).toEqual({
      'Politics|Ann': 3,
      'Politics|Bob': 3,
      'Economy|Ann': 3,
      'Economy|Bob': 3,
      'Sport|Bob': 1,
      'Sport|Cid': 1,
    });
  });

  test('a section listed twice on an article counts once', () => {
    const twice = fixtureStore([view({ article: 0, client: 'c', time: NOW - 1000 })]);
    twice.upsertArticles([{ ...twice.articles[0], sections: ['Politics', 'Politics'] }]);
    expect(rowTotals(query(twice, { groupBy: ['section'] })[0])).toEqual({ Politics: 1 });
  });

  test('an article without sections is in the total but in no section row', () => {
    const bare = fixtureStore([view({ article: 0, client: 'c', time: NOW - 1000 }), view({ article: 1, client: 'c', time: NOW - 1000 })]);
    bare.upsertArticles([{ ...bare.articles[1], sections: [] }]);
    const [result] = query(bare, { groupBy: ['section'] });
    expect(result.total).toBe(2);
    expect(rowTotals(result)).toEqual({ Politics: 1, Economy: 1 });
  });

  test('paging by limit and from', () => {
    const page = (limit: number, from: number) => query(store, { groupBy: ['url'], limit, from })[0].actualData.values.map((r) => r.key);
    const all = page(1000, 0);
    expect(all).toHaveLength(3);
    expect(page(1, 0)).toEqual(all.slice(0, 1));
    expect(page(2, 1)).toEqual(all.slice(1, 3));
    expect(page(5, 3)).toEqual([]);
    expect(query(store, { limit: 1, from: 7 })[0].actualData.values).toHaveLength(1); // ungrouped: always the one row
  });

  test('the default page is 100 rows', () => {
    const campaigns = Array.from({ length: 150 }, (_, i) =>
      view({ article: 0, client: `r${i}`, time: NOW - 1000, traffic: { campaign: `k${i}` } }),
    );
    const [byCampaign] = query(fixtureStore(campaigns), { groupBy: ['campaign'] });
    expect(byCampaign.total).toBe(150);
    expect(byCampaign.actualData.values).toHaveLength(100);
  });
});

describe('newArticles', () => {
  test('counts articles published in the window, filtered and grouped by article dimensions', () => {
    const [bySection] = query(store, { ...only('newArticles'), groupBy: ['section'] });
    expect(bySection.total).toBe(2); // A0, A3: not 3, although A0 is in two sections
    expect(rowTotals(bySection)).toEqual({ Politics: 2, Economy: 1 });
    const filtered = totals(['newArticles'], { filters: [{ filter: 'author', op: 'eq', value: ['Bob'] }] });
    expect(filtered.newArticles).toBe(1); // A0
  });

  test('the series counts publications per bucket', () => {
    const [result] = query(store, { ...only('newArticles'), granularity: 'hourly' });
    const nonZero = result.actualData.data.filter((p) => p.value > 0);
    // A0 at 10:34:56, A3 at 12:04:56
    expect(nonZero).toEqual([
      { key: '2026-11-22 10:00:00', value: 1 },
      { key: '2026-11-22 12:00:00', value: 1 },
    ]);
  });

  test('with page-view metrics, rows cover groups that have either', () => {
    const results = query(store, { metrics: ['pageViewsTotal', 'newArticles'], groupBy: ['url'] });
    expect(rowTotals(resultOf(results, 'pageViewsTotal'))).toEqual({ [A0]: 3, [A1]: 1, [A2]: 1, [A3]: 0 });
    expect(rowTotals(resultOf(results, 'newArticles'))).toEqual({ [A0]: 1, [A1]: 0, [A2]: 0, [A3]: 1 });
  });

  test('cannot be combined with a traffic dimension', () => {
    const outcome = runDashboardQuery(
      store,
      {
        dates: { last: { number: 1, dimension: 'day' } },
        filters: [
          { filter: 'url', op: 'like', value: ['a'] },
          { filter: 'source', op: 'eq', value: ['google'] },
        ],
        groupBy: ['section', 'deviceType'],
        metrics: ['pageViewsTotal', 'newArticles'],
        order: { metric: 'pageViewsTotal', sort: 'DESC' },
      },
      NOW,
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.status).toBe(400);
    expect(outcome.body.errors?.map((e) => e.path)).toEqual(['groupBy[1]', 'filters[1].filter']);
  });
});

describe('additive metrics add up', () => {
  const additive: Metric[] = ['pageViewsTotal', 'totalDuration', 'cumulativeRFV', 'revenueTotal', 'adsImpressions'];
  const micros = (x: number) => Math.round(x * 1e6);

  test('over single-valued groups and over the series', () => {
    const results = query(store, {
      dates: { last: { number: 3, dimension: 'day' } },
      metrics: additive,
      groupBy: ['url', 'source'],
      limit: 1000,
      granularity: 'hourly',
    });
    for (const result of results) {
      const rows = result.actualData.values.reduce((sum, r) => sum + micros(r.total), 0);
      const series = result.actualData.data.reduce((sum, p) => sum + micros(p.value), 0);
      const expected = micros(result.total);
      expect({ metric: result.metric, rows, series }).toEqual({ metric: result.metric, rows: expected, series: expected });
    }
    // and the totals are the sums of all six rows
    expect(resultOf(results, 'revenueTotal').total).toBe(VIEWS.reduce((s, v) => s + v.revenueMicros, 0) / 1e6);
  });
});
