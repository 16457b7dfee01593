import type { CacheOutcome } from '../../src/kernel/fetched';
import { countingCacheHits } from '../../src/operation/cacheHits';
import { UpstreamAllowance } from '../../src/operation/upstreamAllowance';

describe('countingCacheHits', () => {
  const NOW = Date.UTC(2026, 10, 23, 12);
  const servedAs = (cache: CacheOutcome) => async (key: string) => ({ value: key, fetchedAt: NOW - 5_000, cache });

  it.each<CacheOutcome>(['hit', 'stale', 'stale_if_error'])(
    'counts an answer served from the cache (%s) as a cache hit, and gives its allowance back',
    async (cache) => {
      const allowance = new UpstreamAllowance(2);
      const fetch = countingCacheHits(servedAs(cache), allowance);

      expect(allowance.tryTake()).toBe(true);
      await expect(fetch('a')).resolves.toEqual({ value: 'a', fetchedAt: NOW - 5_000, cache });

      expect(allowance.cacheHits).toBe(1);
      expect(allowance.calls).toBe(0);
    },
  );

  it.each<CacheOutcome>(['miss', 'coalesced'])('counts an answer fetched for it (%s: a real or joined call) as a call', async (cache) => {
    const allowance = new UpstreamAllowance(2);
    const fetch = countingCacheHits(servedAs(cache), allowance);

    expect(allowance.tryTake()).toBe(true);
    await fetch('a');

    expect(allowance.cacheHits).toBe(0);
    expect(allowance.calls).toBe(1);
  });
});
