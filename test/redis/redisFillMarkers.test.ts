/**
 * Every claim has an owner and an end (issue 22, defect 1), over a real
 * redis-server: a fill marker whose `SET` timed out, whose release was
 * skipped, or whose owner is gone never holds another replica up. Waiters'
 * clocks are frozen, so only the marker's own end can stop their wait.
 */
import type { Fetched } from '../../src/kernel/fetched';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { RedisAnswerStore } from '../../src/redis/upstream/redisAnswerStore';
import { eventually, redisHarness, type HarnessReplica } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';
import { REDIS_STATE_DEFAULTS } from '../../src/config';

const NOW = Date.UTC(2026, 10, 25, 9);
const FILL_WAIT_MS = 60_000;
const entry: Fetched<unknown> = { value: [{ url: 'https://news.example/a', score: 1 }], fetchedAt: NOW };

describeWithRedis('fill markers in a real Redis', () => {
  const harness = redisHarness();

  function store(replica: HarnessReplica, options: { now?: () => number; leaseMs?: number; waits?: string[] } = {}) {
    const now = options.now ?? (() => NOW);
    const onWait = (key: string) => options.waits?.push(key);
    return new RedisAnswerStore(replica.redis, new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, now }), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: FILL_WAIT_MS,
      pollMs: 5,
      now,
      onWait,
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    });
  }

  test('a claim whose SET timed out (CLIENT PAUSE WRITE) and was applied late leaves no marker: the next replica fetches at once', async () => {
    const admin = await harness.admin();
    // A skips Redis after the timeout for as long as its (frozen) clock says: its own answer write is skipped too.
    const a = await harness.replica({ timeoutMs: 100, retryAfterMs: 60_000 });
    const b = await harness.replica();
    const storeA = store(a);
    const waitsB: string[] = [];
    const storeB = store(b, { waits: waitsB });
    const upstreamCalls: string[] = [];

    await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
    // Redis away for A: nobody to coordinate with, so A fetches without a claim (its SET is applied late).
    await expect(storeA.claim('render:k')).resolves.toEqual({ kind: 'unclaimed' });
    upstreamCalls.push('A');
    await storeA.set('render:k', entry, 60_000);
    expect(a.redis.mode()).toBe('degraded');
    await admin.call('CLIENT', 'UNPAUSE');

    const claimB = await storeB.claim('render:k');
    if (claimB.kind === 'claimed') upstreamCalls.push('B');

    expect(waitsB).toEqual([]);
    expect(claimB).toEqual({ kind: 'claimed' });
    expect(upstreamCalls).toEqual(['A', 'B']);
    await storeB.set('render:k', entry, 60_000);
    expect(await admin.exists('test:filling:render:k')).toBe(0);
  });

  test('a release skipped while the owner skips Redis after an error is sent anyway: the marker is gone', async () => {
    const admin = await harness.admin();
    const a = await harness.replica({ timeoutMs: 100, retryAfterMs: 60_000 });
    const b = await harness.replica();
    const storeA = store(a);
    const waitsB: string[] = [];
    const storeB = store(b, { waits: waitsB });

    await expect(storeA.claim('render:k')).resolves.toEqual({ kind: 'claimed' });
    expect(await admin.exists('test:filling:render:k')).toBe(1);
    await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
    // Another answer's write times out: A now skips Redis (its clock is frozen, so for good).
    await storeA.set('render:other', entry, 60_000);
    expect(a.redis.mode()).toBe('degraded');
    await storeA.fail('render:k');
    await admin.call('CLIENT', 'UNPAUSE');

    await eventually(async () => (await admin.exists('test:filling:render:k')) === 0);
    await expect(storeB.claim('render:k')).resolves.toEqual({ kind: 'claimed' });
    expect(waitsB).toEqual([]);
  });

  test('a waiter stops waiting when the owner is gone: its marker lapses once it is no longer renewed', async () => {
    const admin = await harness.admin();
    const a = await harness.replica();
    const b = await harness.replica();
    const storeA = store(a, { leaseMs: 300 });
    const waitsB: string[] = [];
    const storeB = store(b, { waits: waitsB, leaseMs: 300 });

    await expect(storeA.claim('render:k')).resolves.toEqual({ kind: 'claimed' });
    // The owner's process dies: no release, no renewal.
    a.client.disconnect();
    const waited = storeB.claim('render:k');

    await expect(waited).resolves.toEqual({ kind: 'unclaimed' });
    expect(waitsB).toEqual(['render:k']);
    expect(await admin.exists('test:filling:render:k')).toBe(0);
  });

  test('an owner renews its marker while it fetches: the waiter waits for its answer, not for the lease', async () => {
    const admin = await harness.admin();
    const a = await harness.replica();
    const b = await harness.replica();
    const storeA = store(a, { leaseMs: 300 });
    const storeB = store(b, { leaseMs: 300 });

    await expect(storeA.claim('render:k')).resolves.toEqual({ kind: 'claimed' });
    const waited = storeB.claim('render:k');
    let settled = false;
    void waited.then(() => (settled = true));
    // Three renewals seen from outside: the lease was extended past its first end, several times.
    let renewals = 0;
    let lastTtl = await admin.pttl('test:filling:render:k');
    await eventually(async () => {
      const ttl = await admin.pttl('test:filling:render:k');
      if (ttl > lastTtl) renewals += 1;
      lastTtl = ttl;
      return renewals >= 3;
    });
    expect(settled).toBe(false);
    await storeA.set('render:k', entry, 60_000);

    await expect(waited).resolves.toEqual({ kind: 'filled', entry });
    expect(await admin.exists('test:filling:render:k')).toBe(0);
  });
});

/**
 * A marker the subgraph did not write (issue 29, defect 15): one left without
 * a TTL, or with a TTL far beyond the lease (60 s), by another program or an
 * older release. The waiter's clock is frozen: only the marker's own end can
 * stop its wait, and that end must come within the lease, as for a marker of
 * ours whose owner is gone.
 */
describeWithRedis('fill markers the subgraph did not write', () => {
  const harness = redisHarness();
  const LEASE_MS = 300;

  function waitingStore(replica: HarnessReplica, waits: string[]) {
    const now = () => NOW;
    return new RedisAnswerStore(replica.redis, new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, now }), {
      fillWaitMs: FILL_WAIT_MS,
      leaseMs: LEASE_MS,
      pollMs: 5,
      now,
      onWait: (key) => waits.push(key),
    });
  }

  /** The claim's outcome, or `still waiting` once `withinMs` of real time passed. */
  async function claimWithin(store: RedisAnswerStore, key: string, withinMs: number) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), withinMs)));
    try {
      return await Promise.race([store.claim(key), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  test.each([
    ['without a TTL', (admin: import('ioredis').Redis) => admin.set('test:filling:render:k', 'left-by-someone')],
    ['with a 60 s TTL', (admin: import('ioredis').Redis) => admin.set('test:filling:render:k', 'left-by-someone', 'PX', 60_000)],
    ['of another type, without a TTL', (admin: import('ioredis').Redis) => admin.rpush('test:filling:render:k', 'junk')],
  ])('a marker %s holds a waiter no longer than the lease, and is gone after it', async (_name, plant) => {
    const admin = await harness.admin();
    await plant(admin);
    const waits: string[] = [];
    const store = waitingStore(await harness.replica(), waits);

    const startedAt = Date.now();
    const claim = await claimWithin(store, 'render:k', 10 * LEASE_MS);

    expect(claim).toEqual({ kind: 'unclaimed' });
    expect(waits).toEqual(['render:k']);
    expect(Date.now() - startedAt).toBeLessThan(10 * LEASE_MS);
    expect(await admin.exists('test:filling:render:k')).toBe(0);
  });

  test('on a key whose answer is an error (a 404: nothing is stored), a foreign marker costs one lease, once: the next claim is at once', async () => {
    const admin = await harness.admin();
    await admin.set('test:filling:render:missing', 'left-by-someone');
    const waits: string[] = [];
    const store = waitingStore(await harness.replica(), waits);

    await expect(claimWithin(store, 'render:missing', 10 * LEASE_MS)).resolves.toEqual({ kind: 'unclaimed' });
    // The fetch answered 404: no answer to store, nothing to release (the claim was not ours).
    await store.fail('render:missing');
    await expect(claimWithin(store, 'render:missing', 10 * LEASE_MS)).resolves.toEqual({ kind: 'claimed' });
    await store.fail('render:missing');
    await expect(claimWithin(store, 'render:missing', 10 * LEASE_MS)).resolves.toEqual({ kind: 'claimed' });
    await store.fail('render:missing');

    expect(waits).toEqual(['render:missing']);
    expect(await admin.exists('test:filling:render:missing')).toBe(0);
  });

  test('a marker of ours (owner renewing) keeps its lease: its TTL is never more than the lease, and the waiter gets its answer', async () => {
    const admin = await harness.admin();
    const waits: string[] = [];
    const owner = waitingStore(await harness.replica(), []);
    const waiter = waitingStore(await harness.replica(), waits);

    await expect(owner.claim('render:k')).resolves.toEqual({ kind: 'claimed' });
    const waited = waiter.claim('render:k');
    await eventually(async () => waits.length === 1);
    expect(await admin.pttl('test:filling:render:k')).toBeLessThanOrEqual(LEASE_MS);
    await owner.set('render:k', entry, 60_000);

    await expect(waited).resolves.toEqual({ kind: 'filled', entry });
  });
});
