import type { Table } from '../../reporting/tables/table';
import { MemoryTableStore, type TableStore } from '../../reporting/tables/tableStore';
import { readField, readValue, repairWrongType, repairWrongTypes } from '../connection/readValue';
import type { SharedRedis } from '../connection/sharedRedis';
import { storedTable, tableFromStored } from './storedTable';

/** Keys under the configured REDIS_KEY_PREFIX: a whole table, and a hash of cold answers (url → answer) per table. */
const TABLE_KEY_PREFIX = 'analytics:table:';
const POINTS_KEY_PREFIX = 'analytics:points:';

/**
 * The tables shared by every replica: one replica fetches a table, every
 * replica serves it. Written through to this process's memory, which also
 * answers while Redis is away. Entries expire after `keepMs` (the longest a
 * table may be served: its maximum staleness, or an hour for ended windows).
 */
class RedisTableStore implements TableStore {
  /**
   * Reads of a table in flight, by key: reads at the same moment share one GET and one parse. A refresh announced
   * to a replica makes every live feed of the table read it at once; hundreds of GETs and parses of the same
   * table stalled the replica's loop past its Redis timeout. Only while in flight: the next read asks Redis again.
   */
  private readonly reading = new Map<string, Promise<Table | undefined>>();

  constructor(
    private readonly redis: SharedRedis,
    private readonly local: TableStore,
    private readonly keepMs: number,
    /** The tables' clock: a `fetchedAt` read back is bounded by it. */
    private readonly now: () => number,
  ) {}

  table(key: string): Promise<Table | undefined> {
    const inFlight = this.reading.get(key);
    if (inFlight !== undefined) return inFlight;
    const read = this.read(key).finally(() => this.reading.delete(key));
    this.reading.set(key, read);
    return read;
  }

  private async read(key: string): Promise<Table | undefined> {
    const tableKey = TABLE_KEY_PREFIX + key;
    const read = repairWrongType(this.redis, tableKey, await this.redis.attempt((client) => client.get(tableKey)));
    if (!read.ok) return this.local.table(key);
    const nowMs = this.now();
    const table = readValue(this.redis, tableKey, read.value, (parsed) => tableFromStored(parsed, { key }, nowMs));
    const local = await this.local.table(key);
    // The newer of the two: a table this replica fetched a moment ago may not have reached Redis yet.
    if (table === undefined || (local !== undefined && local.fetchedAt > table.fetchedAt)) return local;
    return table;
  }

  async setTable(table: Table): Promise<void> {
    await this.local.setTable(table);
    await this.redis.attempt((client) => client.set(TABLE_KEY_PREFIX + table.key, storedTable(table), 'PX', this.keepMs));
  }

  async points(key: string, urls: readonly string[]): Promise<Map<string, Table>> {
    const local = await this.local.points(key, urls);
    if (urls.length === 0) return local;
    const pointsKey = POINTS_KEY_PREFIX + key;
    const read = repairWrongType(this.redis, pointsKey, await this.redis.attempt((client) => client.hmget(pointsKey, ...urls)));
    if (!read.ok) return local;
    const found = new Map<string, Table>();
    const nowMs = this.now();
    read.value.forEach((text, index) => {
      const url = urls[index];
      const shared = readField(this.redis, pointsKey, url, text, (parsed) => tableFromStored(parsed, { key, url }, nowMs));
      const mine = local.get(url);
      const newest = shared === undefined || (mine !== undefined && mine.fetchedAt > shared.fetchedAt) ? mine : shared;
      if (newest !== undefined) found.set(url, newest);
    });
    return found;
  }

  async setPoints(table: Table): Promise<void> {
    await this.local.setPoints(table);
    if (table.urls === 'all') return;
    const fields: string[] = [];
    // One entry per url holding only its own row: a reader of one url never parses the whole cold answer.
    for (const url of table.urls) {
      const row = table.rows.get(url);
      fields.push(url, storedTable({ ...table, rows: new Map(row === undefined ? [] : [[url, row]]), urls: new Set([url]) }));
    }
    const pointsKey = POINTS_KEY_PREFIX + table.key;
    const written = await this.redis.attempt((client) =>
      client
        .multi()
        .hset(pointsKey, ...fields)
        .pexpire(pointsKey, this.keepMs)
        .exec(),
    );
    // A key of another type refuses the HSET while the PEXPIRE goes through: deleted here, or it would keep itself alive.
    repairWrongTypes(this.redis, [pointsKey, pointsKey], written);
  }
}

/** An hour: how long a table of a window that has ended stays fresh (src/kernel/dashboardTtl.ts). */
const ENDED_WINDOW_KEEP_SECONDS = 3_600;

/** The replicas' table store (REDIS_URL): kept as long as any table may still be served; `now` is the tables' clock. */
export function sharedTableStore(
  redis: SharedRedis,
  config: { analytics: { maxStalenessSeconds: number } },
  now: () => number,
): TableStore {
  const keepMs = Math.max(config.analytics.maxStalenessSeconds, ENDED_WINDOW_KEEP_SECONDS) * 1000;
  return new RedisTableStore(redis, new MemoryTableStore(), keepMs, now);
}
