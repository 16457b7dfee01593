/**
 * The replicas' analytics board on a real redis-server: what each replica
 * waits for, the cluster's demand per table, the metrics the plan lacks;
 * poisoned entries ignored, and nothing known (never an error) while Redis is
 * away.
 */
import { DEMAND_HALF_LIFE_MS } from '../../src/reporting/tables/demand';
import { sharedAnalyticsBoard } from '../../src/redis/reporting/redisAnalyticsBoard';
import { SlotClaims } from '../../src/reporting/tables/slotClaims';
import { MAX_TTL_MS } from '../../src/redis/connection/ttl';
import { eventually, redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';

const CONFIG = { analytics: { askDeadlineMs: 20_000 } };
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

describeWithRedis('analytics board on Redis', () => {
  const harness = redisHarness();

  async function boards(count: number) {
    return Promise.all(
      Array.from({ length: count }, async () => {
        const { redis } = await harness.replica();
        return sharedAnalyticsBoard(redis, CONFIG);
      }),
    );
  }

  it("each replica sees the other replicas' waiting asks, not its own; a withdrawn or past ask is gone", async () => {
    const [a, b, c] = await boards(3);
    a.post('week', [{ urls: ['u1', 'u2'], metrics: ['pageViewsTotal'], deadline: NOW + 10_000 }]);
    b.post('week', [
      { metrics: ['uniqueUsers'], deadline: NOW + 15_000 },
      { urls: ['u3'], metrics: ['averageScroll'], deadline: NOW - 1 },
    ]);
    await Promise.all([a.posted(), b.posted()]);

    await expect(c.othersWaiting('week', NOW)).resolves.toEqual(
      expect.arrayContaining([
        { urls: ['u1', 'u2'], metrics: ['pageViewsTotal'], deadline: NOW + 10_000 },
        { metrics: ['uniqueUsers'], deadline: NOW + 15_000 },
      ]),
    );
    expect(await c.othersWaiting('week', NOW)).toHaveLength(2);
    expect(await a.othersWaiting('week', NOW)).toEqual([{ metrics: ['uniqueUsers'], deadline: NOW + 15_000 }]);
    expect(await a.othersWaiting('month', NOW)).toEqual([]);

    b.post('week', []);
    await b.posted();
    expect(await a.othersWaiting('week', NOW)).toEqual([]);
  });

  it('the waiting hash expires by itself a little after the longest ask deadline', async () => {
    const [a] = await boards(1);
    a.post('week', [{ urls: ['u1'], metrics: ['pageViewsTotal'], deadline: NOW + 10_000 }]);
    await a.posted();
    const ttl = await (await harness.admin()).pttl('test:analytics:waiting:week');
    expect(ttl).toBeGreaterThan(CONFIG.analytics.askDeadlineMs);
    expect(ttl).toBeLessThanOrEqual(CONFIG.analytics.askDeadlineMs + 5_000);
  });

  it("ignores another replica's entry that does not read as asks, and deadlines no ask can have", async () => {
    const [a] = await boards(1);
    const admin = await harness.admin();
    await admin.hset(
      'test:analytics:waiting:week',
      'poisoned',
      'not json',
      'wrong-shape',
      JSON.stringify([{ urls: [1], metrics: ['pageViewsTotal'], deadline: NOW + 1 }]),
      'unknown-metric',
      JSON.stringify([{ metrics: ['everything'], deadline: NOW + 1_000 }]),
      'far-deadline',
      JSON.stringify([{ metrics: ['pageViewsTotal'], deadline: NOW + 10 * 86_400_000 }]),
      'good',
      JSON.stringify([{ urls: ['u9'], metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]),
    );

    expect(await a.othersWaiting('week', NOW)).toEqual([{ urls: ['u9'], metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]);
  });

  it("adds every replica's asks to one demand per table, halving each half-life; a poisoned score counts as none", async () => {
    const [a, b] = await boards(2);
    await expect(a.recordDemand('week', NOW)).resolves.toBeCloseTo(1, 5);
    await expect(b.recordDemand('week', NOW)).resolves.toBeCloseTo(2, 5);
    await expect(a.recordDemand('week', NOW + DEMAND_HALF_LIFE_MS)).resolves.toBeCloseTo(2, 5);
    await expect(b.recordDemand('month', NOW)).resolves.toBeCloseTo(1, 5);

    const admin = await harness.admin();
    const ttl = await admin.pttl('test:analytics:demand:week');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10 * DEMAND_HALF_LIFE_MS);
    await admin.set('test:analytics:demand:week', 'inf:abc');
    await expect(a.recordDemand('week', NOW)).resolves.toBeCloseTo(1, 5);
  });

  it('a metric one replica learns the plan lacks is known to every replica, for at most a day', async () => {
    const [a, b] = await boards(2);
    expect(await b.unavailableMetrics()).toEqual([]);
    a.learnUnavailable('revenueTotal');
    await a.posted();
    const admin = await harness.admin();
    await admin.sadd('test:analytics:plan:unavailable', 'notAMetric');

    expect(await b.unavailableMetrics()).toEqual(['revenueTotal']);
    const ttl = await admin.pttl('test:analytics:plan:unavailable');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(Math.min(MAX_TTL_MS, 86_400_000));
  });

  it('deletes and counts each entry that does not read as asks, and each member of the plan that is no metric; the good ones stay', async () => {
    const { redis, refusals } = await harness.replica();
    const board = sharedAnalyticsBoard(redis, CONFIG);
    const admin = await harness.admin();
    await admin.hset(
      'test:analytics:waiting:week',
      'junk',
      'not json',
      'half-good',
      JSON.stringify([
        { metrics: ['pageViewsTotal'], deadline: NOW + 1_000 },
        { metrics: ['everything'], deadline: NOW + 1_000 },
      ]),
      'good',
      JSON.stringify([{ metrics: ['uniqueUsers'], deadline: NOW + 1_000 }]),
    );
    await admin.sadd('test:analytics:plan:unavailable', 'CPM', 'notAMetric');

    expect(await board.othersWaiting('week', NOW)).toEqual([{ metrics: ['uniqueUsers'], deadline: NOW + 1_000 }]);
    expect(await board.unavailableMetrics()).toEqual(['CPM']);

    await eventually(async () => (await admin.hkeys('test:analytics:waiting:week')).length === 1);
    expect(await admin.hkeys('test:analytics:waiting:week')).toEqual(['good']);
    expect(await admin.smembers('test:analytics:plan:unavailable')).toEqual(['CPM']);
    expect(refusals).toEqual(['BADVALUE', 'BADVALUE', 'BADVALUE']);
  });

  it('a demand stamped further ahead than clock skew counts as none', async () => {
    const [a] = await boards(1);
    await (await harness.admin()).set('test:analytics:demand:week', `500000000.000000:${NOW + 10 * 365 * 86_400_000}`);

    await expect(a.recordDemand('week', NOW)).resolves.toBeCloseTo(1, 5);
  });

  it('drops the fields of replicas with nothing live left (stopped, or not the subgraph), so the hash stays small', async () => {
    const [a] = await boards(1);
    const admin = await harness.admin();
    await admin.hset(
      'test:analytics:waiting:week',
      'stopped-replica',
      JSON.stringify([{ metrics: ['pageViewsTotal'], deadline: NOW - 1 }]),
      'junk',
      'not json',
      'live',
      JSON.stringify([{ metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]),
    );
    await a.othersWaiting('week', NOW);
    await a.othersWaiting('week', NOW); // after the first call's clean-up, on the same connection

    expect((await admin.hkeys('test:analytics:waiting:week')).sort()).toEqual(['live']);
  });

  it('a key of another type is deleted, and the board works again', async () => {
    const [a, b] = await boards(2);
    const admin = await harness.admin();
    await admin.set('test:analytics:waiting:week', 'a string');
    await admin.set('test:analytics:plan:unavailable', 'a string');
    await admin.rpush('test:analytics:demand:week', 'a list');

    expect(await a.othersWaiting('week', NOW)).toEqual([]);
    expect(await a.unavailableMetrics()).toEqual([]);
    await expect(a.recordDemand('week', NOW)).resolves.toBeCloseTo(1, 5);
    a.post('week', [{ metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]);
    a.learnUnavailable('CPM');
    await a.posted();

    expect(await b.othersWaiting('week', NOW)).toEqual([{ metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]);
    expect(await b.unavailableMetrics()).toEqual(['CPM']);
  });

  /** One slot a minute: the rule of a slot's claims (src/reporting/tables/slotClaims.ts), for two replicas' claims. */
  async function promisesOneTableASlot(
    claim: (replica: 0 | 1, table: string, from: number, now: number) => Promise<number | false | undefined>,
  ) {
    const SLOT = 60_000;
    // The week's urls are promised the next slot; the month's whole table, refused a second later on the other replica, the one after.
    expect(await claim(0, 'week', NOW + 40_000, NOW)).toBe(NOW + 40_000);
    expect(await claim(1, 'month', NOW + 41_000, NOW + 1_000)).toBe(NOW + 41_000 + SLOT);
    // The same table on the other replica shares its slot (one query carries both), at the instant promised first.
    expect(await claim(1, 'week', NOW + 40_500, NOW + 1_000)).toBe(NOW + 40_000);
    // Every slot within reach promised to other tables: none.
    expect(await claim(0, 'day', NOW + 40_000, NOW + 2_000)).toBe(NOW + 40_000 + 2 * SLOT);
    expect(await claim(1, 'hour', NOW + 40_000, NOW + 2_000)).toBe(false);
    // Once the week's slot passed, its claim is gone: the next week's promise is a slot of its own, not the passed one.
    expect(await claim(1, 'week', NOW + 40_000 + 3 * SLOT, NOW + 40_000 + 2 * SLOT)).toBe(NOW + 40_000 + 3 * SLOT);
    expect(await claim(0, 'month', NOW + 40_000 + 3 * SLOT, NOW + 40_000 + 2 * SLOT)).toBe(NOW + 40_000 + 4 * SLOT);
  }

  it("promises each coming slot to one table for the cluster; this replica's own ledger keeps the same rule", async () => {
    const cluster = await boards(2);
    await promisesOneTableASlot((replica, table, from, now) => cluster[replica].claimSlot(table, from, 60_000, 3, now));
    const own = new SlotClaims();
    await promisesOneTableASlot(async (_replica, table, from, now) => own.claim(table, from, 60_000, 3, now) ?? false);
  });

  it("tells every replica who a slot is promised to, whichever replica claimed it (the urls' claimant too)", async () => {
    const [a, b] = await boards(2);
    expect(await a.claimSlot('week|urls', NOW + 40_000, 60_000, 3, NOW)).toBe(NOW + 40_000);
    expect(await a.claimSlot('month', NOW + 40_000, 60_000, 3, NOW)).toBe(NOW + 100_000);
    // The slot comes a little off the instant a refusal read (63 s slots for 60 s promises): within half a slot, it is that one.
    expect(await b.claimantsAt(NOW + 43_000, 60_000)).toEqual(['week|urls']);
    expect(await b.claimantsAt(NOW + 106_000, 60_000)).toEqual(['month']);
    expect(await b.claimantsAt(NOW + 169_000, 60_000)).toEqual([]);
    const own = new SlotClaims();
    own.claim('week|urls', NOW + 40_000, 60_000, 3, NOW);
    expect(own.claimantsAt(NOW + 43_000, 60_000)).toEqual(['week|urls']);
  });

  it("one replica at a time holds a table's query: the others are told it is in flight until it is released", async () => {
    const [a, b] = await boards(2);
    await expect(a.claimFetch('week', 60_000)).resolves.toBe(true);
    await expect(b.claimFetch('week', 60_000)).resolves.toBe(false);
    await expect(b.claimFetch('month', 60_000)).resolves.toBe(true);
    // A lease: a replica that dies mid-query frees the table within seconds, not at the end of its hold.
    const ttl = await (await harness.admin()).pttl('test:analytics:fetching:week');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);

    b.releaseFetch('week'); // not b's: nothing happens
    await expect(b.claimFetch('week', 60_000)).resolves.toBe(false);
    a.releaseFetch('week');
    await eventually(() => b.claimFetch('week', 60_000));
    await expect(a.claimFetch('week', 60_000)).resolves.toBe(false);
    b.releaseFetch('week');
    b.releaseFetch('month');
  });

  it('knows nothing, and throws nothing, while Redis is away', async () => {
    const { redis } = await harness.replica({ timeoutMs: 100 });
    const board = sharedAnalyticsBoard(redis, CONFIG);
    await harness.server().stop();
    try {
      board.post('week', [{ metrics: ['pageViewsTotal'], deadline: NOW + 1_000 }]);
      board.learnUnavailable('revenueTotal');
      await board.posted();
      await expect(board.othersWaiting('week', NOW)).resolves.toEqual([]);
      await expect(board.recordDemand('week', NOW)).resolves.toBeUndefined();
      await expect(board.unavailableMetrics()).resolves.toEqual([]);
      await expect(board.claimSlot('week', NOW + 40_000, 60_000, 3, NOW)).resolves.toBeUndefined();
      await expect(board.claimantsAt(NOW + 40_000, 60_000)).resolves.toBeUndefined();
      // Nobody can say another replica is fetching: this one may.
      await expect(board.claimFetch('week', 60_000)).resolves.toBe(true);
      board.releaseFetch('week');
    } finally {
      await harness.server().start();
    }
  });
});
