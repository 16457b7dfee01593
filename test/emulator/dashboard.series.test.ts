import type { DashboardPoint } from '../../emulator/dashboard';
import { A0, HOUR, MINUTE, NOW, fixtureStore, only, query, view } from './dashboard.fixtures';

/*
 * NOW is 2026-11-22 12:34:56 UTC. View times (see dashboard.fixtures.ts):
 * v0 12:24:56, v1 12:14:56, v2 11:24:56, v3 09:34:56, v4 07:34:56 on the 22nd,
 * v5 12:34:56 on the 20th.
 */
const store = fixtureStore();

const nonZero = (data: DashboardPoint[]) => data.filter((p) => p.value !== 0);
const stepsOf = (data: DashboardPoint[]) =>
  data.slice(1).map((p, i) => Date.parse(`${p.key.replace(' ', 'T')}Z`) - Date.parse(`${data[i].key.replace(' ', 'T')}Z`));

describe('series buckets', () => {
  test('realtime: 5-minute buckets aligned to UTC, from the bucket of the start to the bucket of now', () => {
    const [result] = query(store, { dates: { last: { number: 1, dimension: 'hour' } } });
    const data = result.actualData.data;
    expect(result.granularity).toBe('realtime');
    // 11:34:56 .. 12:34:56 → buckets 11:30 .. 12:30
    expect(data[0].key).toBe('2026-11-22 11:30:00');
    expect(data[data.length - 1].key).toBe('2026-11-22 12:30:00');
    expect(data).toHaveLength(13);
    expect(new Set(stepsOf(data))).toEqual(new Set([5 * MINUTE]));
    expect(nonZero(data)).toEqual([
      { key: '2026-11-22 12:10:00', value: 1 },
      { key: '2026-11-22 12:20:00', value: 1 },
    ]);
  });

  test('hourly over a day: 25 buckets, empty ones present with 0', () => {
    const [result] = query(store, { granularity: 'hourly' });
    const data = result.actualData.data;
    expect(data).toHaveLength(25);
    expect(data[0].key).toBe('2026-11-21 12:00:00');
    expect(data[24].key).toBe('2026-11-22 12:00:00');
    expect(new Set(stepsOf(data))).toEqual(new Set([HOUR]));
    expect(nonZero(data)).toEqual([
      { key: '2026-11-22 07:00:00', value: 1 },
      { key: '2026-11-22 09:00:00', value: 1 },
      { key: '2026-11-22 11:00:00', value: 1 },
      { key: '2026-11-22 12:00:00', value: 2 },
    ]);
  });

  test('daily over a date range: one bucket per UTC day, both ends included', () => {
    const [result] = query(store, { dates: { range: { start: '2026-11-01', end: '2026-11-22' } }, granularity: 'daily' });
    const data = result.actualData.data;
    expect(data).toHaveLength(22);
    expect(data[0]).toEqual({ key: '2026-11-01 00:00:00', value: 0 });
    expect(nonZero(data)).toEqual([
      { key: '2026-11-20 00:00:00', value: 1 },
      { key: '2026-11-22 00:00:00', value: 5 },
    ]);
  });

  test('ratio metrics are the ratio within each bucket', () => {
    const [perPage] = query(store, {
      metrics: ['averageDurationPerPage'],
      order: { metric: 'averageDurationPerPage', sort: 'DESC' },
      granularity: 'hourly',
    });
    expect(nonZero(perPage.actualData.data)).toEqual([
      { key: '2026-11-22 07:00:00', value: 90 },
      { key: '2026-11-22 11:00:00', value: 120 },
      { key: '2026-11-22 12:00:00', value: (60 + 30) / 2 },
    ]);
    expect(perPage.total).toBe((60 + 30 + 120 + 0 + 90) / 5);
  });

  test('distinct users are counted per bucket', () => {
    const twice = fixtureStore([
      view({ article: 0, client: 'a', time: NOW - 10 * MINUTE }),
      view({ article: 1, client: 'a', time: NOW - 20 * MINUTE }),
      view({ article: 1, client: 'b', time: NOW - 20 * MINUTE }),
      view({ article: 0, client: 'a', time: NOW - 2 * HOUR }),
    ]);
    const [users] = query(twice, { ...only('uniqueUsers'), granularity: 'hourly' });
    expect(users.total).toBe(2);
    expect(nonZero(users.actualData.data)).toEqual([
      { key: '2026-11-22 10:00:00', value: 1 },
      { key: '2026-11-22 12:00:00', value: 2 },
    ]);
  });

  test('the series ignores groupBy paging: it covers all groups', () => {
    const [result] = query(store, { groupBy: ['url'], limit: 1, granularity: 'daily' });
    expect(result.actualData.values).toHaveLength(1);
    expect(result.actualData.values[0].items[0].value).toBe(A0);
    expect(result.actualData.data).toEqual([
      { key: '2026-11-21 00:00:00', value: 0 },
      { key: '2026-11-22 00:00:00', value: 5 },
    ]);
  });
});

describe('granularity', () => {
  test.each([
    [{ last: { number: 1, dimension: 'hour' } }, ['realtime', 'hourly', 'daily']],
    [{ last: { number: 24, dimension: 'hour' } }, ['realtime', 'hourly', 'daily']],
    [{ last: { number: 1441, dimension: 'minute' } }, ['hourly', 'daily']],
    [{ last: { number: 31, dimension: 'day' } }, ['hourly', 'daily']],
    [{ last: { number: 1, dimension: 'month' } }, ['hourly', 'daily']],
    [{ last: { number: 32, dimension: 'day' } }, ['daily']],
    [{ last: { number: 5, dimension: 'week' } }, ['daily']],
    [{ range: { start: '2026-11-22', end: '2026-11-22' } }, ['realtime', 'hourly', 'daily']],
    [{ range: { start: '2026-11-21', end: '2026-11-22' } }, ['hourly', 'daily']],
    [{ range: { start: '2026-10-01', end: '2026-10-31' } }, ['hourly', 'daily']],
    [{ range: { start: '2026-10-01', end: '2026-11-01' } }, ['daily']],
  ])('window %j offers %j, the finest by default', (dates, available) => {
    const [result] = query(store, { dates });
    expect(result.availableGranularities).toEqual(available);
    expect(result.granularity).toBe(available[0]);
  });

  test('a requested granularity is used and echoed by every metric', () => {
    const results = query(store, { granularity: 'daily', metrics: ['pageViewsTotal', 'adsImpressions'] });
    expect(results.map((r) => [r.granularity, r.availableGranularities])).toEqual([
      ['daily', ['realtime', 'hourly', 'daily']],
      ['daily', ['realtime', 'hourly', 'daily']],
    ]);
  });

  test('a long daily window has one bucket per day', () => {
    const [result] = query(store, { dates: { last: { number: 365, dimension: 'day' } } });
    expect(result.granularity).toBe('daily');
    expect(result.actualData.data).toHaveLength(366); // the start's day to today
    expect(result.actualData.data[365].key).toBe('2026-11-22 00:00:00');
    expect(result.total).toBe(6);
  });
});
