import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const entry = (text: string) => ({ value: [text], fetchedAt: 1 });

describe('MemoryAnswerStore', () => {
  test('is bounded by entries: the least recently used goes first', async () => {
    const store = new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, maxEntries: 2 });
    await store.set('a', entry('a'), 60_000);
    await store.set('b', entry('b'), 60_000);
    await store.get('a');
    await store.set('c', entry('c'), 60_000);

    expect(await store.get('a')).toEqual(entry('a'));
    expect(await store.get('b')).toBeUndefined();
    expect(store.size).toBe(2);
  });

  test('is bounded by bytes, and skips an entry larger than the whole bound', async () => {
    const store = new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, maxBytes: 150 });
    await store.set('small-1', entry('x'.repeat(20)), 60_000);
    await store.set('small-2', entry('y'.repeat(20)), 60_000);
    await store.set('huge', entry('z'.repeat(500)), 60_000);
    await store.set('small-3', entry('w'.repeat(20)), 60_000);

    expect(await store.get('huge')).toBeUndefined();
    expect(await store.get('small-3')).toEqual(entry('w'.repeat(20)));
    expect(await store.get('small-1')).toBeUndefined();
  });

  test('forgets an entry once its keep time has passed, and keeps nothing for 0', async () => {
    let now = 1_000;
    const store = new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, now: () => now });
    await store.set('a', entry('a'), 5_000);
    await store.set('zero', entry('zero'), 0);
    now += 4_999;
    expect(await store.get('a')).toEqual(entry('a'));
    now += 2;
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('zero')).toBeUndefined();
  });
});
