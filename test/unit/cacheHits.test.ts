import { countingCacheHits } from '../../src/limits/cacheHits';
import { UpstreamBudget } from '../../src/limits/upstreamBudget';

describe('countingCacheHits', () => {
  const NOW = Date.UTC(2026, 10, 23, 12);

  it('counts an answer fetched before it was asked for as a cache hit, and gives its budget back', async () => {
    const budget = new UpstreamBudget(2);
    const fetch = countingCacheHits(
      async (key: string) => ({ value: key, fetchedAt: NOW - 5_000 }),
      budget,
      () => NOW,
    );

    expect(budget.tryTake()).toBe(true);
    await expect(fetch('a')).resolves.toEqual({ value: 'a', fetchedAt: NOW - 5_000 });

    expect(budget.cacheHits).toBe(1);
    expect(budget.calls).toBe(0);
  });

  it('counts an answer fetched after it was asked for (a real or joined call) as a call', async () => {
    const budget = new UpstreamBudget(2);
    const fetch = countingCacheHits(
      async (key: string) => ({ value: key, fetchedAt: NOW }),
      budget,
      () => NOW,
    );

    expect(budget.tryTake()).toBe(true);
    await fetch('a');

    expect(budget.cacheHits).toBe(0);
    expect(budget.calls).toBe(1);
  });
});
