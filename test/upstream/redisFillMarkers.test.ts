/**
 * Every claim has an owner and an end (issue 22, defect 1), over a real
 * redis-server: a fill marker whose `SET` timed out, whose release was
 * skipped, or whose owner is gone never holds another replica up. Waiters'
 * clocks are frozen, so only the marker's own end can stop their wait.
 */
import type { Fetched } from '../../src/upstream/datasources/fetched';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { RedisAnswerStore } from '../../src/upstream/stores/redisAnswerStore';
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
