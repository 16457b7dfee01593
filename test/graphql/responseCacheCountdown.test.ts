import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { CountdownCache } from '../../src/graphql/responseCache/countdownCache';

const STORED_AT = Date.UTC(2026, 10, 20, 12);

function stored(maxAge: number, scope = 'PUBLIC'): string {
  return JSON.stringify({ data: { hello: 'world' }, cachePolicy: { maxAge, scope }, cacheTime: STORED_AT });
}

describe('CountdownCache: a stored response carries the seconds it has left', () => {
  it('serves a response 20 s after storing with 40 of its 60 seconds, counted as stored now', async () => {
    const store = new InMemoryLRUCache<string>();
    await store.set('k', stored(60));
    const read = await new CountdownCache(store, () => STORED_AT + 20_000).get('k');
    expect(JSON.parse(read ?? '{}')).toEqual({
      data: { hello: 'world' },
      cachePolicy: { maxAge: 40, scope: 'PUBLIC' },
      cacheTime: STORED_AT + 20_000,
    });
  });

  it('rounds a part-second left up, as the cache hints do', async () => {
    const store = new InMemoryLRUCache<string>();
    await store.set('k', stored(60));
    const read = await new CountdownCache(store, () => STORED_AT + 59_500).get('k');
    expect(JSON.parse(read ?? '{}').cachePolicy.maxAge).toBe(1);
  });

  it('misses a response with no seconds left, and a key never stored', async () => {
    const store = new InMemoryLRUCache<string>();
    await store.set('k', stored(60));
    const cache = new CountdownCache(store, () => STORED_AT + 60_000);
    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.get('missing')).toBeUndefined();
  });

  it('writes and deletes through to the store', async () => {
    const store = new InMemoryLRUCache<string>();
    const cache = new CountdownCache(store, () => STORED_AT);
    await cache.set('k', stored(30), { ttl: 30 });
    expect(await store.get('k')).toBe(stored(30));
    await cache.delete('k');
    expect(await store.get('k')).toBeUndefined();
  });
});
