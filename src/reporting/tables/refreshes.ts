import type { Table } from './table';
import type { TableStore } from './tableStore';

/** A table (or a cold answer of it) was written: its spec's key and when its numbers were fetched. */
export interface TableRefreshed {
  key: string;
  fetchedAt: number;
}

export type RefreshListener = (event: TableRefreshed) => void;

/** Where a write is told to the other replicas (a Redis channel); absent: this process only. */
export interface RefreshBroadcast {
  publish(event: TableRefreshed): void;
}

/**
 * The tables' "refreshed" event: every write of a table store watched here
 * is told to the listeners of its key, once, after the write landed (so a
 * listener reading the store sees it). Writes fetched by another replica
 * arrive through `receive` (the Redis channel). Listeners never slow the
 * write: they are called after it, and a throwing one is ignored.
 */
export class TableRefreshes {
  private readonly listeners = new Map<string, Set<RefreshListener>>();
  private broadcast: RefreshBroadcast | undefined;

  /** The store, with every write also told to this key's listeners (and broadcast to the other replicas). */
  watch(store: TableStore): TableStore {
    return {
      table: (key) => store.table(key),
      points: (key, urls) => store.points(key, urls),
      setTable: async (table) => {
        await store.setTable(table);
        this.written(table);
      },
      setPoints: async (table) => {
        await store.setPoints(table);
        this.written(table);
      },
    };
  }

  /** Sends this replica's writes to the others from now on. */
  broadcastTo(broadcast: RefreshBroadcast): void {
    this.broadcast = broadcast;
  }

  /** Listens to the writes of one table; returns the way to stop. */
  on(key: string, listener: RefreshListener): () => void {
    let set = this.listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  /** A write another replica made, received on the channel (a replica's own messages are skipped there: its listeners heard the write already); listeners tolerate a repeat. */
  receive(event: TableRefreshed): void {
    for (const listener of [...(this.listeners.get(event.key) ?? [])]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the other listeners and the write go on.
      }
    }
  }

  private written(table: Table): void {
    const event = { key: table.key, fetchedAt: table.fetchedAt };
    this.receive(event);
    this.broadcast?.publish(event);
  }
}
