import type { RecommendationWire, RenderParams } from '../../src/kernel/wire';
import { settleWithConcurrency } from '../../src/operation/loaders/concurrency';
import { createRecommendationsLoader, renderBatch, renderCacheKey } from '../../src/operation/loaders/recommendations';
import { FAKE_FETCHED_AT, fakeRecommender, itemsFor } from '../support/subgraph';
import { deferred } from '../support/deferred';

describe('renderCacheKey', () => {
  it('is the same for the same parameter set, whatever the property order', () => {
    expect(renderCacheKey({ id: 'IL_a', domain: 'd.example', clientId: 'c1' })).toBe(
      renderCacheKey({ clientId: 'c1', domain: 'd.example', id: 'IL_a' }),
    );
  });

  it('tells every parameter apart, and an absent one from an empty one', () => {
    const variants: RenderParams[] = [
      { id: 'IL_a' },
      { id: 'IL_b' },
      { id: 'IL_a', canonicalUrl: 'https://x.example/1' },
      { id: 'IL_a', domain: 'https://x.example/1' },
      { id: 'IL_a', clientId: 'https://x.example/1' },
      { id: 'IL_a', clientId: '' },
      { id: 'IL_a', domain: '' },
      { id: 'IL_a', canonicalUrl: '' },
    ];
    expect(new Set(variants.map(renderCacheKey)).size).toBe(variants.length);
  });
});

describe('recommendations loader', () => {
  it('calls render once per distinct parameter set within one operation', async () => {
    const recommender = fakeRecommender();
    const loader = createRecommendationsLoader(recommender, { maxConcurrency: 8 });
    const same: RenderParams = { id: 'IL_same', domain: 'd.example' };
    const results = await Promise.all([
      loader.load(same),
      loader.load({ ...same }),
      loader.load({ domain: 'd.example', id: 'IL_same' }),
      loader.load({ id: 'IL_same', domain: 'd.example', clientId: 'reader-1' }),
      loader.load({ id: 'IL_other', canonicalUrl: 'https://d.example/a' }),
    ]);
    expect(recommender.calls).toEqual([
      same,
      { id: 'IL_same', domain: 'd.example', clientId: 'reader-1' },
      { id: 'IL_other', canonicalUrl: 'https://d.example/a' },
    ]);
    expect(results.map(({ value }) => value[0].title)).toEqual([
      itemsFor(same)[0].title,
      itemsFor(same)[0].title,
      itemsFor(same)[0].title,
      itemsFor({ id: 'IL_same', domain: 'd.example', clientId: 'reader-1' })[0].title,
      itemsFor({ id: 'IL_other', canonicalUrl: 'https://d.example/a' })[0].title,
    ]);
  });

  it('fails only the loads of a key whose call failed', async () => {
    const recommender = fakeRecommender(async (params) => {
      if (params.id === 'IL_missing') throw new Error('Experience not found');
      return itemsFor(params);
    });
    const loader = createRecommendationsLoader(recommender, { maxConcurrency: 2 });
    const outcomes = await Promise.allSettled([
      loader.load({ id: 'IL_ok', domain: 'd.example' }),
      loader.load({ id: 'IL_missing', domain: 'd.example' }),
      loader.load({ id: 'IL_ok2', domain: 'd.example' }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[1].status === 'rejected' && outcomes[1].reason).toEqual(new Error('Experience not found'));
    expect(recommender.calls).toHaveLength(3);
  });

  it('never has more than maxConcurrency render calls in flight', async () => {
    const pending: { params: RenderParams; done: ReturnType<typeof deferred<RecommendationWire[]>> }[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const recommender = fakeRecommender((params) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const done = deferred<RecommendationWire[]>();
      pending.push({ params, done });
      return done.promise.finally(() => {
        inFlight -= 1;
      });
    });
    const loader = createRecommendationsLoader(recommender, { maxConcurrency: 3 });
    const keys = Array.from({ length: 10 }, (_, index) => ({ id: `IL_${index}`, domain: 'd.example' }));
    const all = Promise.all(keys.map((key) => loader.load(key)));

    // Release calls one at a time, oldest first, until every key was asked for.
    for (let released = 0; released < keys.length; released += 1) {
      while (pending.length <= released) await new Promise((resolve) => setImmediate(resolve));
      expect(inFlight).toBeLessThanOrEqual(3);
      pending[released].done.resolve(itemsFor(pending[released].params));
    }
    const results = await all;

    expect(maxInFlight).toBe(3);
    expect(recommender.calls.map((params) => params.id)).toEqual(keys.map((key) => key.id));
    expect(results.map(({ value }) => value[0].url)).toEqual(keys.map((key) => itemsFor(key)[0].url));
  });
});

describe('renderBatch (the DataLoader batch contract)', () => {
  it('returns one result per key in key order, an Error for each failed key', async () => {
    const recommender = fakeRecommender(async (params) => {
      // Answer out of order, so ordering cannot come from completion order.
      await new Promise((resolve) => setTimeout(resolve, params.id === 'IL_slow' ? 5 : 0));
      if (params.id === 'IL_bad') throw new Error('boom');
      return itemsFor(params, 1);
    });
    const keys: RenderParams[] = [
      { id: 'IL_slow', domain: 'a' },
      { id: 'IL_bad', domain: 'b' },
      { id: 'IL_fast', domain: 'c' },
    ];
    const results = await renderBatch(recommender, { maxConcurrency: 3 })(keys);
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({ value: itemsFor(keys[0], 1), fetchedAt: FAKE_FETCHED_AT, cache: 'miss' });
    expect(results[1]).toEqual(new Error('boom'));
    expect(results[2]).toEqual({ value: itemsFor(keys[2], 1), fetchedAt: FAKE_FETCHED_AT, cache: 'miss' });
  });

  it('turns a non-Error rejection into an Error, so DataLoader does not cache it as a value', async () => {
    const recommender = fakeRecommender(() => Promise.reject('plain string'));
    const [result] = await renderBatch(recommender, { maxConcurrency: 1 })([{ id: 'IL_x', domain: 'd' }]);
    expect(result).toBeInstanceOf(Error);
    expect(result).toEqual(new Error('render.json failed: plain string'));
  });
});

describe('settleWithConcurrency', () => {
  it('rejects a limit below 1', async () => {
    await expect(settleWithConcurrency([1], 0, async (n) => n)).rejects.toThrow('limit must be an integer >= 1, got 0');
  });

  it('settles an empty list without calling work', async () => {
    const work = jest.fn(async (n: number) => n);
    await expect(settleWithConcurrency([], 4, work)).resolves.toEqual([]);
    expect(work).not.toHaveBeenCalled();
  });
});
