import type { Table } from './table';

/**
 * Where tables live between asks: this process's memory by default, Redis
 * when replicas share them. Whole tables by their spec's key; the answers of
 * narrowed queries by spec and url (each url keeps the latest answer that spoke for it).
 */
export interface TableStore {
  table(key: string): Promise<Table | undefined>;
  setTable(table: Table): Promise<void>;
  /** The latest narrowed answer that spoke for each of `urls` (absent urls: none). */
  points(key: string, urls: readonly string[]): Promise<Map<string, Table>>;
  setPoints(table: Table): Promise<void>;
}

/** Most tables (and most narrowed answers per table) one process keeps: the oldest asked-for go first. */
const MAX_TABLES = 1_000;
const MAX_POINTS_PER_TABLE = 5_000;

/** The in-process TableStore, bounded by entries; staleness is the reader's business (it knows the TTLs). */
export class MemoryTableStore implements TableStore {
  private readonly tables = new Map<string, Table>();
  private readonly pointsByKey = new Map<string, Map<string, Table>>();

  async table(key: string): Promise<Table | undefined> {
    return this.tables.get(key);
  }

  async setTable(table: Table): Promise<void> {
    this.tables.delete(table.key);
    this.tables.set(table.key, table);
    evictOldest(this.tables, MAX_TABLES);
  }

  async points(key: string, urls: readonly string[]): Promise<Map<string, Table>> {
    const byUrl = this.pointsByKey.get(key);
    const found = new Map<string, Table>();
    if (byUrl === undefined) return found;
    for (const url of urls) {
      const table = byUrl.get(url);
      if (table !== undefined) found.set(url, table);
    }
    return found;
  }

  async setPoints(table: Table): Promise<void> {
    if (table.urls === 'all') throw new Error('setPoints: a whole table belongs in setTable');
    let byUrl = this.pointsByKey.get(table.key);
    if (byUrl === undefined) {
      byUrl = new Map();
      this.pointsByKey.set(table.key, byUrl);
      evictOldest(this.pointsByKey, MAX_TABLES);
    }
    for (const url of table.urls) {
      byUrl.delete(url);
      byUrl.set(url, table);
    }
    evictOldest(byUrl, MAX_POINTS_PER_TABLE);
  }
}

function evictOldest<K, V>(map: Map<K, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
