import type { DashboardQueryBody } from '../../src/kernel/wire';
import { dashboardAnswerKey, renderAnswerKey } from '../../src/upstream/keys';

const BODY: DashboardQueryBody = {
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [{ filter: 'deviceType', op: 'eq', value: ['mobile'] }],
  groupBy: ['url'],
  metrics: ['pageViewsTotal', 'uniqueUsers'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
  limit: 5,
};

describe('renderAnswerKey', () => {
  test('every parameter changes the key: no answer for one reader or page serves another', () => {
    const base = { id: 'IL_a', canonicalUrl: 'https://news.example/a', domain: 'news.example', clientId: 'reader-1' };
    const variants = [
      base,
      { ...base, id: 'IL_b' },
      { ...base, canonicalUrl: 'https://news.example/b' },
      { ...base, domain: 'other.example' },
      { ...base, clientId: 'reader-2' },
      { id: 'IL_a', canonicalUrl: 'https://news.example/a', domain: 'news.example' },
      { id: 'IL_a', canonicalUrl: 'https://news.example/a', domain: 'news.example', clientId: '' },
    ];

    const keys = variants.map(renderAnswerKey);

    expect(new Set(keys).size).toBe(variants.length);
  });

  test('the same parameters give the same key whatever the property order', () => {
    expect(renderAnswerKey({ clientId: 'r', id: 'IL_a', domain: 'd.example' })).toBe(
      renderAnswerKey({ id: 'IL_a', domain: 'd.example', clientId: 'r' }),
    );
  });

  test('a value cannot pose as another parameter', () => {
    expect(renderAnswerKey({ id: 'IL_a', domain: 'x' })).not.toBe(renderAnswerKey({ id: 'IL_a', canonicalUrl: 'x' }));
  });
});

describe('dashboardAnswerKey', () => {
  test('the account is part of the key: one account never reads the answer of another', () => {
    expect(dashboardAnswerKey('a@one.example', BODY)).not.toBe(dashboardAnswerKey('a@two.example', BODY));
  });

  test('every field of the body changes the key', () => {
    const variants: DashboardQueryBody[] = [
      BODY,
      { ...BODY, dates: { last: { number: 8, dimension: 'day' } } },
      { ...BODY, dates: { range: { start: '2026-11-01', end: '2026-11-07' } } },
      { ...BODY, filters: [] },
      { ...BODY, filters: [{ filter: 'deviceType', op: 'eq', value: ['desktop'] }] },
      { ...BODY, groupBy: ['section'] },
      { ...BODY, metrics: ['uniqueUsers', 'pageViewsTotal'] },
      { ...BODY, order: { metric: 'pageViewsTotal', sort: 'ASC' } },
      { ...BODY, granularity: 'daily' },
      { ...BODY, limit: 6 },
      { ...BODY, from: 5 },
    ];

    const keys = variants.map((body) => dashboardAnswerKey('api@demo.example', body));

    expect(new Set(keys).size).toBe(variants.length);
  });

  test('object key order does not matter', () => {
    const reordered: DashboardQueryBody = {
      limit: 5,
      order: { sort: 'DESC', metric: 'pageViewsTotal' },
      metrics: ['pageViewsTotal', 'uniqueUsers'],
      groupBy: ['url'],
      filters: [{ value: ['mobile'], op: 'eq', filter: 'deviceType' }],
      dates: { last: { dimension: 'day', number: 7 } },
    };

    expect(dashboardAnswerKey('api@demo.example', reordered)).toBe(dashboardAnswerKey('api@demo.example', BODY));
  });
});
