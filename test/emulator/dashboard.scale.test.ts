import { runDashboardQuery, type DashboardMetricResult, type Metric } from '../../emulator/dashboard';
import { generateDemoData } from '../../emulator/data';
import { EmulatorStore, TRAFFIC_DIMENSIONS, type Dimension, type TrafficDimension } from '../../emulator/store';

/*
 * The engine against a deliberately naive reference (row objects, Maps of
 * Sets) on generated demo data: a few thousand views with realistic
 * skew, multi-section articles and every traffic dimension in use.
 */

const NOW = Date.UTC(2026, 10, 22, 9, 17, 3);
const store = new EmulatorStore();
generateDemoData(store, { seed: 7, scale: 0.02, now: NOW });

interface Row {
  time: number;
  client: number;
  article: number;
  duration: number;
  scroll: number;
  ads: number;
  revenueMicros: number;
  rfv: number;
  traffic: Record<TrafficDimension, string>;
}

const rows: Row[] = Array.from({ length: store.views.length }, (_, i) => ({
  time: store.views.time.data[i],
  client: store.views.client.data[i],
  article: store.views.article.data[i],
  duration: store.views.duration.data[i],
  scroll: store.views.scroll.data[i],
  ads: store.views.ads.data[i],
  revenueMicros: store.views.revenueMicros.data[i],
  rfv: store.views.rfv.data[i],
  traffic: Object.fromEntries(
    TRAFFIC_DIMENSIONS.map((d) => [d, store.views.traffic[d].dictionary.values[store.views.traffic[d].column.data[i]]]),
  ) as Record<TrafficDimension, string>,
}));

function valuesOf(row: Row, dimension: Dimension): string[] {
  const article = store.articles[row.article];
  switch (dimension) {
    case 'url':
      return [article.url];
    case 'title':
      return [article.title];
    case 'domain':
      return [article.domain];
    case 'section':
      return [...new Set(article.sections)];
    case 'author':
      return [...new Set(article.authors)];
    default:
      return [row.traffic[dimension]];
  }
}

interface Tally {
  views: number;
  clients: Set<number>;
  revenueMicros: number;
  scroll: number;
}

const emptyTally = (): Tally => ({ views: 0, clients: new Set(), revenueMicros: 0, scroll: 0 });

/** Reference: views, distinct clients, revenue and scroll per group and overall. */
function reference(windowStart: number, keep: (row: Row) => boolean, groupBy: Dimension) {
  const groups = new Map<string, Tally>();
  const all = emptyTally();
  for (const row of rows) {
    if (row.time < windowStart || row.time > NOW || !keep(row)) continue;
    const tallies = [all];
    for (const value of valuesOf(row, groupBy)) {
      let tally = groups.get(value);
      if (!tally) groups.set(value, (tally = emptyTally()));
      tallies.push(tally);
    }
    for (const tally of tallies) {
      tally.views++;
      tally.clients.add(row.client);
      tally.revenueMicros += row.revenueMicros;
      tally.scroll += row.scroll;
    }
  }
  return { groups, all };
}

function run(request: Record<string, unknown>): DashboardMetricResult[] {
  const outcome = runDashboardQuery(store, request, NOW);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.body));
  return outcome.value;
}

const byMetric = (results: DashboardMetricResult[], metric: Metric) => {
  const result = results.find((r) => r.metric === metric);
  if (!result) throw new Error(`missing ${metric}`);
  return result;
};

const rowMap = (result: DashboardMetricResult) => new Map(result.actualData.values.map((r) => [r.items[0].value, r.total]));

test('the generated store is big enough to mean something', () => {
  expect(rows.length).toBeGreaterThan(5000);
  expect(store.articles.some((a) => new Set(a.sections).size > 1)).toBe(true);
});

test.each<[string, Dimension, Record<string, unknown>[], (row: Row) => boolean]>([
  [
    'section, filtered by device',
    'section',
    [{ filter: 'deviceType', op: 'neq', value: ['tablet'] }],
    (r) => r.traffic.deviceType !== 'tablet',
  ],
  [
    'source, filtered by section',
    'source',
    [{ filter: 'section', op: 'like', value: ['o'] }],
    (r) => store.articles[r.article].sections.some((s) => s.toLowerCase().includes('o')),
  ],
  ['author, unfiltered', 'author', [], () => true],
])('grouped by %s: every row and the total match the reference', (_label, dimension, filters, keep) => {
  const windowStart = NOW - 7 * 86_400_000;
  const results = run({
    dates: { last: { number: 7, dimension: 'day' } },
    filters,
    groupBy: [dimension],
    metrics: ['pageViewsTotal', 'uniqueUsers', 'revenueTotal', 'averageScroll'],
    order: { metric: 'uniqueUsers', sort: 'DESC' },
    limit: 1000,
  });
  const { groups, all } = reference(windowStart, keep, dimension);
  const expected = (pick: (g: Tally) => number) => new Map([...groups].map(([k, g]) => [k, pick(g)]));
  const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

  expect(rowMap(byMetric(results, 'pageViewsTotal'))).toEqual(expected((g) => g.views));
  expect(rowMap(byMetric(results, 'uniqueUsers'))).toEqual(expected((g) => g.clients.size));
  expect(rowMap(byMetric(results, 'revenueTotal'))).toEqual(expected((g) => g.revenueMicros / 1e6));
  expect(rowMap(byMetric(results, 'averageScroll'))).toEqual(expected((g) => round4(g.scroll / g.views)));
  const totals = [all.views, all.clients.size, all.revenueMicros / 1e6, round4(all.scroll / all.views)];
  expect(results.map((r) => r.total)).toEqual(totals);

  const users = byMetric(results, 'uniqueUsers').actualData.values.map((r) => r.total);
  expect(users).toEqual([...users].sort((a, b) => b - a));
});

test('additive metrics add up over single-valued groups and over the series', () => {
  const additive: Metric[] = ['pageViewsTotal', 'totalDuration', 'cumulativeRFV', 'revenueTotal', 'adsImpressions'];
  const micros = (x: number) => Math.round(x * 1e6);
  const results = run({
    dates: { last: { number: 30, dimension: 'day' } },
    filters: [],
    groupBy: ['domain', 'deviceType'],
    metrics: additive,
    order: { metric: 'pageViewsTotal', sort: 'ASC' },
    limit: 1000,
  });
  for (const result of results) {
    const sumRows = result.actualData.values.reduce((s, r) => s + micros(r.total), 0);
    const sumSeries = result.actualData.data.reduce((s, p) => s + micros(p.value), 0);
    expect([result.metric, sumRows, sumSeries]).toEqual([result.metric, micros(result.total), micros(result.total)]);
  }
  expect(byMetric(results, 'pageViewsTotal').total).toBe(rows.filter((r) => r.time >= NOW - 30 * 86_400_000).length);
});

test('newArticles by domain matches a count of publish times', () => {
  const start = NOW - 14 * 86_400_000;
  const [result] = run({
    dates: { last: { number: 14, dimension: 'day' } },
    filters: [],
    groupBy: ['domain'],
    metrics: ['newArticles'],
    order: { metric: 'newArticles', sort: 'DESC' },
  });
  const expected = new Map<string, number>();
  for (const a of store.articles) {
    if (a.publishTime >= start && a.publishTime <= NOW) expected.set(a.domain, (expected.get(a.domain) ?? 0) + 1);
  }
  expect(rowMap(result)).toEqual(expected);
  expect(result.actualData.data.reduce((s, p) => s + p.value, 0)).toBe(result.total);
});

test('distinct users per hour and overall match the reference', () => {
  const start = NOW - 2 * 86_400_000;
  const [result] = run({
    dates: { last: { number: 2, dimension: 'day' } },
    filters: [{ filter: 'userType', op: 'neq', value: ['subscriber'] }],
    groupBy: [],
    metrics: ['uniqueUsers'],
    order: { metric: 'uniqueUsers', sort: 'DESC' },
    granularity: 'hourly',
  });
  const perHour = new Map<string, Set<number>>();
  const all = new Set<number>();
  for (const row of rows) {
    if (row.time < start || row.time > NOW || row.traffic.userType === 'subscriber') continue;
    const hour = new Date(Math.floor(row.time / 3_600_000) * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    if (!perHour.has(hour)) perHour.set(hour, new Set());
    perHour.get(hour)?.add(row.client);
    all.add(row.client);
  }
  expect(result.total).toBe(all.size);
  expect(result.actualData.data).toHaveLength(49);
  expect(result.actualData.data.filter((p) => p.value > 0)).toEqual(
    [...perHour].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, clients]) => ({ key, value: clients.size })),
  );
});
