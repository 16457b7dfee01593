import type { MetricName } from '../datasources/wire';
import type { Table } from '../../reporting/tables/table';
import { MemoryTableStore, type TableStore } from '../../reporting/tables/tableStore';
import type { SharedRedis } from './redis/sharedRedis';

/** Keys under the configured REDIS_KEY_PREFIX: a whole table, and a hash of cold answers (url → answer) per table. */
const TABLE_KEY_PREFIX = 'analytics:table:';
const POINTS_KEY_PREFIX = 'analytics:points:';

/** A Table as JSON: Maps and Sets as arrays. */
interface StoredTable {
  key: string;
  from: number;
  to: number;
  fetchedAt: number;
  metrics: MetricName[];
  rows: [string, Partial<Record<MetricName, number>>][];
  complete: boolean;
  urls: 'all' | string[];
}

/**
 * The tables shared by every replica: one replica fetches a table, every
 * replica serves it. Written through to this process's memory, which also
 * answers while Redis is away. Entries expire after `keepMs` (the longest a
 * table may be served: its maximum staleness, or an hour for ended windows).
 */
class RedisTableStore implements TableStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly local: TableStore,
    private readonly keepMs: number,
  ) {}

  async table(key: string): Promise<Table | undefined> {
    const read = await this.redis.attempt((client) => client.get(TABLE_KEY_PREFIX + key));
    if (!read.ok) return this.local.table(key);
    const table = read.value === null ? undefined : parseTable(read.value);
    const local = await this.local.table(key);
    // The newer of the two: a table this replica fetched a moment ago may not have reached Redis yet.
    if (table === undefined || (local !== undefined && local.fetchedAt > table.fetchedAt)) return local;
    return table;
  }

  async setTable(table: Table): Promise<void> {
    await this.local.setTable(table);
    await this.redis.attempt((client) => client.set(TABLE_KEY_PREFIX + table.key, JSON.stringify(toStored(table)), 'PX', this.keepMs));
  }

  async points(key: string, urls: readonly string[]): Promise<Map<string, Table>> {
    const local = await this.local.points(key, urls);
    if (urls.length === 0) return local;
    const read = await this.redis.attempt((client) => client.hmget(POINTS_KEY_PREFIX + key, ...urls));
    if (!read.ok) return local;
    const found = new Map<string, Table>();
    read.value.forEach((text, index) => {
      const shared = text === null ? undefined : parseTable(text);
      const mine = local.get(urls[index]);
      const newest = shared === undefined || (mine !== undefined && mine.fetchedAt > shared.fetchedAt) ? mine : shared;
      if (newest !== undefined) found.set(urls[index], newest);
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
      fields.push(url, JSON.stringify(toStored({ ...table, rows: new Map(row === undefined ? [] : [[url, row]]), urls: new Set([url]) })));
    }
    const pointsKey = POINTS_KEY_PREFIX + table.key;
    await this.redis.attempt((client) =>
      client
        .multi()
        .hset(pointsKey, ...fields)
        .pexpire(pointsKey, this.keepMs)
        .exec(),
    );
  }
}

function toStored(table: Table): StoredTable {
  return {
    key: table.key,
    from: table.from,
    to: table.to,
    fetchedAt: table.fetchedAt,
    metrics: [...table.metrics],
    rows: [...table.rows.entries()].map(([url, values]) => [url, { ...values }]),
    complete: table.complete,
    urls: table.urls === 'all' ? 'all' : [...table.urls],
  };
}

/** Another replica's (or another version's) entry that does not read as a table is treated as absent. */
function parseTable(text: string): Table | undefined {
  try {
    const stored = JSON.parse(text) as StoredTable;
    if (typeof stored.key !== 'string' || typeof stored.fetchedAt !== 'number' || !Array.isArray(stored.rows)) return undefined;
    return {
      key: stored.key,
      from: stored.from,
      to: stored.to,
      fetchedAt: stored.fetchedAt,
      metrics: stored.metrics,
      rows: new Map(stored.rows),
      complete: stored.complete,
      urls: stored.urls === 'all' ? 'all' : new Set(stored.urls),
    };
  } catch {
    return undefined;
  }
}

/** An hour: how long a table of a window that has ended stays fresh (src/upstream/endpoints/dashboardTtl.ts). */
const ENDED_WINDOW_KEEP_SECONDS = 3_600;

/** The replicas' table store (REDIS_URL): kept as long as any table may still be served. */
export function sharedTableStore(redis: SharedRedis, config: { analytics: { maxStalenessSeconds: number } }): TableStore {
  const keepMs = Math.max(config.analytics.maxStalenessSeconds, ENDED_WINDOW_KEEP_SECONDS) * 1000;
  return new RedisTableStore(redis, new MemoryTableStore(), keepMs);
}
