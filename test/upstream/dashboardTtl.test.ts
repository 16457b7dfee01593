import { dashboardTtlSeconds, PAST_WINDOW_TTL_SECONDS } from '../../src/kernel/dashboardTtl';
import type { DashboardQueryBody } from '../../src/kernel/wire';

// The answer cache reads the upstream body's `dates`; the cache hints read the GraphQL input's (test/graphql/cacheHints.test.ts).
const NOW = Date.UTC(2026, 10, 23, 12);
const ttl = (dates: DashboardQueryBody['dates'], configured = 60) => dashboardTtlSeconds(dates, NOW, configured);

describe('dashboardTtlSeconds over upstream bodies', () => {
  test('a relative window reaches the present: the configured time to live', () => {
    expect(ttl({ last: { number: 7, dimension: 'day' } })).toBe(60);
  });

  test('a range that ended in the past is kept an hour, or the configured TTL when that is longer', () => {
    expect(ttl({ range: { start: '2026-11-01', end: '2026-11-15' } })).toBe(PAST_WINDOW_TTL_SECONDS);
    expect(ttl({ range: { start: '2026-11-01', end: '2026-11-23T11:00:00Z' } })).toBe(PAST_WINDOW_TTL_SECONDS);
    expect(ttl({ range: { start: '2026-11-01', end: '2026-11-15' } }, 7200)).toBe(7200);
  });

  test('a date-only end includes its whole day, so today is still open', () => {
    expect(ttl({ range: { start: '2026-11-01', end: '2026-11-23' } })).toBe(60);
    expect(ttl({ range: { start: '2026-11-01', end: '2026-11-22' } })).toBe(PAST_WINDOW_TTL_SECONDS);
  });

  test('0 turns the cache off for every window', () => {
    expect(ttl({ range: { start: '2026-11-01', end: '2026-11-15' } }, 0)).toBe(0);
    expect(ttl({ last: { number: 1, dimension: 'hour' } }, 0)).toBe(0);
  });
});
