/**
 * A failover notice (+switch-master) that reaches the client while it is
 * reconnecting, in the middle of asking a sentinel for the primary: ioredis
 * (6.0) then gave up on the connection for good (status `end`, no
 * reconnection scheduled), and the replica stayed degraded until restarted.
 * Under load the ask takes longer, so the notice lands in it more often: the
 * Sentinel suite's "both subgraph replicas sharing state again" timed out.
 * A stand-in sentinel holds its answer until the notice has been handled,
 * so the race happens every time.
 */
import { closeRedisClient, createRedisClient, waitUntilReady, type RedisClient } from '../../src/redis/connection/client';
import { startFakeSentinel, type FakeSentinel } from '../support/fakeSentinel';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';

const GROUP = 'race-primary';
/** A bound on each wait for the client, not a sleep: it is ready within milliseconds when it reconnects at all. */
const READY_WITHIN_MS = 10_000;

describeWithRedis('a failover notice during a reconnection', () => {
  let oldPrimary: RedisServer;
  let newPrimary: RedisServer;
  let sentinel: FakeSentinel;
  let client: RedisClient | undefined;

  beforeAll(async () => {
    [oldPrimary, newPrimary] = await Promise.all([startRedisServer(), startRedisServer()]);
    sentinel = await startFakeSentinel(oldPrimary.port);
  });

  afterAll(async () => {
    if (client !== undefined) await closeRedisClient(client);
    await sentinel?.close();
    await Promise.all([oldPrimary?.close(), newPrimary?.close()]);
  });

  test('the client reconnects to the primary the sentinels name now', async () => {
    client = createRedisClient({ keyPrefix: 'race:', timeoutMs: 1_000, sentinel: { nodes: [sentinel.node], name: GROUP } });
    client.on('error', () => undefined);
    expect(await waitUntilReady(client, READY_WITHIN_MS)).toBe(true);
    await sentinel.subscribers(1);

    // The primary crashes; the client's reconnection asks the sentinel, which holds its answer…
    const asked = sentinel.holdNextAsk();
    await oldPrimary.kill();
    const held = await asked;
    // …while the sentinels announce the failover, and the client's failover detector acts on it.
    sentinel.announceSwitch(GROUP, oldPrimary.port, newPrimary.port);
    await sentinel.noSubscribers();
    sentinel.namePrimary(newPrimary.port);
    held.release();

    expect(await waitUntilReady(client, READY_WITHIN_MS)).toBe(true);
    expect(await client.set('after-failover', '1')).toBe('OK');
  }, 30_000);
});
