/**
 * One contract, three stores: the in-process MemoryAnswerStore, the
 * RedisAnswerStore against a real redis-server, and the RedisAnswerStore
 * with Redis down (its in-process fallback). Two "fillers" are two replicas
 * with Redis (separate connections and stores), and two callers of one store
 * otherwise. The clock never moves: every wait ends on an event. Claims are
 * for replicas: the Redis store takes them; in one process (the memory
 * store, and the Redis store while Redis is away) the coalescing stage
 * already leaves one filler per key, so every claim is `unclaimed`.
 */
import type { Fetched } from '../../src/kernel/fetched';
import { RedisAnswerStore } from '../../src/redis/upstream/redisAnswerStore';
import type { AnswerStore } from '../../src/upstream/stores/answerStore';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { contractRedis, type StoreKind } from '../support/redisReplica';
import { REDIS_STATE_DEFAULTS } from '../../src/config';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const NOW = Date.UTC(2026, 10, 23, 12);
/** Claims that would outlast any test: only set or fail can end a wait. */
const FILL_WAIT_MS = 60_000;
const entry: Fetched<unknown> = { value: [{ metric: 'pageViewsTotal', total: 3 }], fetchedAt: NOW - 1_000 };

interface Fillers {
  one: AnswerStore;
  two: AnswerStore;
  /** Resolves once a claim on `key` waits for another filler. */
  waitingOn(key: string): Promise<void>;
}

/** The stores' `onWait` hook, as promises a test can await. */
function waits() {
  const waiters = new Map<string, () => void>();
  const seen = new Set<string>();
  return {
    onWait: (key: string) => {
      seen.add(key);
      waiters.get(key)?.();
    },
    waitingOn: (key: string) => (seen.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(key, resolve))),
  };
}

const redis = contractRedis();

async function redisStore(kind: 'redis' | 'redis down', onWait: (key: string) => void): Promise<AnswerStore> {
  const replica = await redis.connect(kind);
  const local = new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, now: () => NOW });
  return new RedisAnswerStore(replica.redis, local, {
    ...REDIS_STATE_DEFAULTS.answerFill,
    fillWaitMs: FILL_WAIT_MS,
    pollMs: 5,
    now: () => NOW,
    onWait,
  });
}

const fillers: Record<StoreKind, () => Promise<Fillers>> = {
  memory: async () => {
    const { waitingOn } = waits();
    const store = new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, now: () => NOW });
    return { one: store, two: store, waitingOn };
  },
  redis: async () => {
    const { onWait, waitingOn } = waits();
    return { one: await redisStore('redis', onWait), two: await redisStore('redis', onWait), waitingOn };
  },
  'redis down': async () => {
    const { onWait, waitingOn } = waits();
    const store = await redisStore('redis down', onWait);
    return { one: store, two: store, waitingOn };
  },
};

describe.each(redis.kinds)('the AnswerStore contract: %s', (kind) => {
  test('an entry set is got back as it was; other keys stay misses', async () => {
    const { one, two } = await fillers[kind]();
    await one.set('k', entry, 60_000);
    await expect(two.get('k')).resolves.toEqual(entry);
    await expect(two.get('other')).resolves.toBeUndefined();
  });

  test('keepMs 0 (or less) keeps nothing', async () => {
    const { one } = await fillers[kind]();
    await one.set('zero', entry, 0);
    await one.set('negative', entry, -5);
    await expect(one.get('zero')).resolves.toBeUndefined();
    await expect(one.get('negative')).resolves.toBeUndefined();
  });
});

describe.each(redis.kinds.filter((kind) => kind === 'redis'))('the AnswerStore claims across replicas: %s', (kind) => {
  test('the first claim fills; a second waits for its answer and gets it', async () => {
    const { one, two, waitingOn } = await fillers[kind]();
    await expect(one.claim('k')).resolves.toEqual({ kind: 'claimed' });
    const waiting = two.claim('k');
    await waitingOn('k');
    await one.set('k', entry, 60_000);
    await expect(waiting).resolves.toEqual({ kind: 'filled', entry });
  });

  test('a failed fill releases the waiters at once: they fetch for themselves, and may claim again', async () => {
    const { one, two, waitingOn } = await fillers[kind]();
    await expect(one.claim('k')).resolves.toEqual({ kind: 'claimed' });
    const waiting = two.claim('k');
    await waitingOn('k');
    await one.fail('k');
    await expect(waiting).resolves.toEqual({ kind: 'unclaimed' });
    await expect(two.claim('k')).resolves.toEqual({ kind: 'claimed' });
    await two.fail('k');
  });

  test('a claim on a key already answered hands the answer back', async () => {
    const { one, two } = await fillers[kind]();
    await one.set('k', entry, 60_000);
    await expect(two.claim('k')).resolves.toEqual({ kind: 'filled', entry });
  });

  test('claims on different keys do not wait for each other', async () => {
    const { one, two } = await fillers[kind]();
    await expect(one.claim('a')).resolves.toEqual({ kind: 'claimed' });
    await expect(two.claim('b')).resolves.toEqual({ kind: 'claimed' });
    await one.fail('a');
    await two.fail('b');
  });

  test('a set with keepMs 0 still releases the claim', async () => {
    const { one, two, waitingOn } = await fillers[kind]();
    await expect(one.claim('k')).resolves.toEqual({ kind: 'claimed' });
    const waiting = two.claim('k');
    await waitingOn('k');
    await one.set('k', entry, 0);
    await expect(waiting).resolves.toEqual({ kind: 'unclaimed' });
  });
});

describe.each(redis.kinds.filter((kind) => kind !== 'redis'))('one process takes no claims: %s', (kind) => {
  test('every claim is unclaimed, even on a key already claimed or answered; set and fail still work', async () => {
    const { one, two } = await fillers[kind]();
    await expect(one.claim('k')).resolves.toEqual({ kind: 'unclaimed' });
    await expect(two.claim('k')).resolves.toEqual({ kind: 'unclaimed' });
    await one.fail('k');
    await one.set('k', entry, 60_000);
    await expect(two.claim('k')).resolves.toEqual({ kind: 'unclaimed' });
    await expect(two.get('k')).resolves.toEqual(entry);
  });
});
