import type { MetricName } from '../../kernel/wire';
import type { TableSpec } from './tableSpec';

/**
 * What asks refused with `retryAfter` left behind for the slot their refusal
 * named (issue 38, item 3): the urls and metrics of one table, or the whole
 * table, that the query of that slot carries, so that the caller's retry at
 * `retryAfter` finds its numbers stored (in every replica's store, with Redis).
 */
export interface Left {
  spec: TableSpec;
  /** The whole table (an ask with nothing to serve it); else the urls outside it. */
  whole: boolean;
  urls: Set<string>;
  metrics: Set<MetricName>;
  /** Refused asks it stands for. */
  asks: number;
  /** The slot the refusals named: from then on it is owed that slot. */
  promisedAt: number;
  /** When the first of them was refused: numbers fetched since (by another replica's slot) answer it. */
  since: number;
  /** Nobody retries for it any more (a retry comes at `retryAfter`): forgotten, unsent. */
  expiresAt: number;
}

/** Most tables with demand left at once (each is at most one query's urls). */
const MAX_TABLES = 100;

/**
 * The demand refused asks left, by table. Bounded: at most MAX_TABLES tables,
 * each at most one narrowed query's urls (ANALYTICS_CHUNK_SIZE); what does not
 * fit is not kept (its ask keeps the budget's own refusal). Demand is only
 * left by asks that were let wait: a caller past its cap of new tables or its
 * fair share is refused before it waits, so it leaves nothing here.
 */
export class LeftDemand {
  private readonly byKey = new Map<string, Left>();

  constructor(private readonly maxUrls: number) {}

  /** Leaves an ask's need for the slot at `promisedAt`; false when it does not fit (nothing kept). */
  leave(
    need: { spec: TableSpec; urls?: readonly string[]; metrics: readonly MetricName[] },
    now: number,
    promisedAt: number,
    expiresAt: number,
  ): boolean {
    const left = this.byKey.get(need.spec.key);
    if (left === undefined && this.byKey.size >= MAX_TABLES) return false;
    const urls = new Set([...(left?.urls ?? []), ...(need.urls ?? [])]);
    if (urls.size > this.maxUrls) return false;
    this.byKey.set(need.spec.key, {
      spec: need.spec,
      whole: (left?.whole ?? false) || need.urls === undefined,
      urls,
      metrics: new Set([...(left?.metrics ?? []), ...need.metrics]),
      asks: (left?.asks ?? 0) + 1,
      promisedAt: Math.min(left?.promisedAt ?? Infinity, promisedAt),
      since: Math.min(left?.since ?? Infinity, now),
      expiresAt: Math.max(left?.expiresAt ?? 0, expiresAt),
    });
    return true;
  }

  /** The demand left on a table (expired demand forgotten). */
  get(key: string, now: number): Left | undefined {
    const left = this.byKey.get(key);
    if (left !== undefined && left.expiresAt <= now) this.byKey.delete(key);
    return this.byKey.get(key);
  }

  /** The tables with demand left (expired demand forgotten). */
  keys(now: number): string[] {
    return [...this.byKey.keys()].filter((key) => this.get(key, now) !== undefined);
  }

  /** Taken for a slot's query: off the list while in flight. */
  take(key: string): Left | undefined {
    const left = this.byKey.get(key);
    this.byKey.delete(key);
    return left;
  }

  /** Its query was not answered (the slot refused, a metric learned outside the plan): owed the next slot again. */
  restore(left: Left): void {
    const now = this.byKey.get(left.spec.key);
    if (now === undefined) {
      this.byKey.set(left.spec.key, left);
      return;
    }
    this.byKey.set(left.spec.key, {
      ...now,
      whole: now.whole || left.whole,
      urls: new Set([...now.urls, ...left.urls]),
      metrics: new Set([...now.metrics, ...left.metrics]),
      asks: now.asks + left.asks,
      promisedAt: Math.min(now.promisedAt, left.promisedAt),
      since: Math.min(now.since, left.since),
      expiresAt: Math.max(now.expiresAt, left.expiresAt),
    });
  }
}
