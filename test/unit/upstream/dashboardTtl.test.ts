import type { DashboardQueryBody } from '../../../src/datasources/wire';
import { CLOSED_WINDOW_TTL_MS, dashboardTtlMs } from '../../../src/upstream/dashboardTtl';

const NOW = Date.UTC(2026, 10, 23, 12);
const body = (dates: DashboardQueryBody['dates']): DashboardQueryBody => ({
  dates,
  filters: [],
  groupBy: [],
  metrics: ['pageViewsTotal'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
});

describe('dashboardTtlMs', () => {
  test('a relative window reaches the present: the configured time to live', () => {
    expect(dashboardTtlMs(body({ last: { number: 7, dimension: 'day' } }), 60, NOW)).toBe(60_000);
  });

  test('a range that ended in the past is kept an hour', () => {
    expect(dashboardTtlMs(body({ range: { start: '2026-11-01', end: '2026-11-15' } }), 60, NOW)).toBe(CLOSED_WINDOW_TTL_MS);
    expect(dashboardTtlMs(body({ range: { start: '2026-11-01', end: '2026-11-23T11:00:00Z' } }), 60, NOW)).toBe(CLOSED_WINDOW_TTL_MS);
  });

  test('a date-only end includes its whole day, so today is still open', () => {
    expect(dashboardTtlMs(body({ range: { start: '2026-11-01', end: '2026-11-23' } }), 60, NOW)).toBe(60_000);
    expect(dashboardTtlMs(body({ range: { start: '2026-11-01', end: '2026-11-22' } }), 60, NOW)).toBe(CLOSED_WINDOW_TTL_MS);
  });

  test('0 turns the cache off for every window', () => {
    expect(dashboardTtlMs(body({ range: { start: '2026-11-01', end: '2026-11-15' } }), 0, NOW)).toBe(0);
    expect(dashboardTtlMs(body({ last: { number: 1, dimension: 'hour' } }), 0, NOW)).toBe(0);
  });
});
