/**
 * Reads of the shared tables on a real redis-server: a table written once
 * is read by every live feed of the replica when its refresh is announced,
 * all at once.
 */
import { sharedTableStore } from '../../src/redis/reporting/redisTableStore';
import { redisHarness } from '../support/redisHarness';
import { describeWithRedis } from '../support/redisServer';

const NOW = Date.UTC(2026, 10, 29, 3);
const CONFIG = { analytics: { maxStalenessSeconds: 3_600 } };

/** Calls of one command Redis has served so far (INFO commandstats). */
async function calls(admin: { info(section: string): Promise<string> }, command: string): Promise<number> {
  const line = (await admin.info('commandstats')).split('\n').find((entry) => entry.startsWith(`cmdstat_${command}:`));
  return Number(/calls=(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

describeWithRedis('shared table reads', () => {
  const harness = redisHarness();

  // Fixed test-first: each of a replica's feeds read (GET and parse) the whole table on its own when a refresh
  // was announced; with hundreds of feeds that stalled the replica's loop past its Redis timeout.
  it('reads of one table at the same moment share one GET and one parse', async () => {
    const admin = await harness.admin();
    const writer = sharedTableStore((await harness.replica()).redis, CONFIG, () => NOW);
    const reader = sharedTableStore((await harness.replica()).redis, CONFIG, () => NOW);
    const rows = new Map(Array.from({ length: 500 }, (_, index) => [`https://news.example/${index}`, { pageViewsTotal: index }]));
    await writer.setTable({
      key: 'week',
      from: NOW - 7 * 86_400_000,
      to: NOW,
      fetchedAt: NOW - 1_000,
      metrics: ['pageViewsTotal'],
      rows,
      urls: 'all',
      complete: true,
    });

    const before = await calls(admin, 'get');
    const tables = await Promise.all(Array.from({ length: 50 }, () => reader.table('week')));
    const gets = (await calls(admin, 'get')) - before;

    expect(gets).toBe(1);
    expect(tables.every((table) => table === tables[0])).toBe(true);
    expect(tables[0]?.rows.size).toBe(500);
    // Once answered, the next read asks Redis again: another replica may have written since.
    await reader.table('week');
    expect((await calls(admin, 'get')) - before).toBe(2);
  });
});
