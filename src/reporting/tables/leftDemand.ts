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

/** Most entries of demand left at once (each is at most one query's urls). */
const MAX_ENTRIES = 100;

/**
 * The claimant of a table's promised slot, for its whole table or for its urls outside it: two promises, two slots.
 * One entry for both let the whole table's query take the slot and the urls' demand with it, unsent, so their
 * retries were refused again (issue 38, item 3: one run in three on three replicas).
 */
export function claimantOf(key: string, whole: boolean): string {
  return whole ? key : `${key}${URLS_CLAIMANT}`;
}

const URLS_CLAIMANT = '|urls';

/** The table a claimant (`claimantOf`) is of. */
export function tableOfClaimant(claimant: string): string {
  return claimant.endsWith(URLS_CLAIMANT) ? claimant.slice(0, -URLS_CLAIMANT.length) : claimant;
}

/** A table's demand left: for its whole table, and for urls outside it (each owed a slot of its own). */
export interface TableLeft {
  whole?: Left;
  urls?: Left;
}

/**
 * The demand refused asks left, by table and kind (whole table, urls outside
 * it). Bounded: at most MAX_ENTRIES entries, each at most one narrowed
 * query's urls (ANALYTICS_CHUNK_SIZE); what does not fit is not kept (its ask
 * keeps the budget's own refusal). Demand is only left by asks that were let
 * wait: a caller past its cap of new tables or its fair share is refused
 * before it waits, so it leaves nothing here.
 */
export class LeftDemand {
  private readonly byClaimant = new Map<string, Left>();

  constructor(private readonly maxUrls: number) {}

  /** Leaves an ask's need for the slot at `promisedAt`; false when it does not fit (nothing kept). */
  leave(
    need: { spec: TableSpec; urls?: readonly string[]; metrics: readonly MetricName[] },
    now: number,
    promisedAt: number,
    expiresAt: number,
  ): boolean {
    const whole = need.urls === undefined;
    const claimant = claimantOf(need.spec.key, whole);
    const left = this.byClaimant.get(claimant);
    if (left === undefined && this.byClaimant.size >= MAX_ENTRIES) return false;
    const urls = new Set([...(left?.urls ?? []), ...(need.urls ?? [])]);
    if (urls.size > this.maxUrls) return false;
    this.byClaimant.set(claimant, {
      spec: need.spec,
      whole,
      urls,
      metrics: new Set([...(left?.metrics ?? []), ...need.metrics]),
      asks: (left?.asks ?? 0) + 1,
      promisedAt: Math.min(left?.promisedAt ?? Infinity, promisedAt),
      since: Math.min(left?.since ?? Infinity, now),
      expiresAt: Math.max(left?.expiresAt ?? 0, expiresAt),
    });
    return true;
  }

  /** The demand left on a table, each kind (expired demand forgotten). */
  get(key: string, now: number): TableLeft {
    const whole = this.live(claimantOf(key, true), now);
    const urls = this.live(claimantOf(key, false), now);
    return { ...(whole === undefined ? {} : { whole }), ...(urls === undefined ? {} : { urls }) };
  }

  /** Every entry of demand left (expired demand forgotten). */
  all(now: number): Left[] {
    return [...this.byClaimant.keys()].flatMap((claimant) => this.live(claimant, now) ?? []);
  }

  /** The tables with demand left (expired demand forgotten). */
  keys(now: number): string[] {
    return [...new Set(this.all(now).map((left) => left.spec.key))];
  }

  /** Taken for a slot's query: off the list while in flight. */
  take(left: Left): Left | undefined {
    const claimant = claimantOf(left.spec.key, left.whole);
    const taken = this.byClaimant.get(claimant);
    this.byClaimant.delete(claimant);
    return taken;
  }

  /** Its query was not answered (the slot refused, a metric learned outside the plan): owed the next slot again. */
  restore(left: Left): void {
    const claimant = claimantOf(left.spec.key, left.whole);
    const now = this.byClaimant.get(claimant);
    if (now === undefined) {
      this.byClaimant.set(claimant, left);
      return;
    }
    this.byClaimant.set(claimant, {
      ...now,
      urls: new Set([...now.urls, ...left.urls]),
      metrics: new Set([...now.metrics, ...left.metrics]),
      asks: now.asks + left.asks,
      promisedAt: Math.min(now.promisedAt, left.promisedAt),
      since: Math.min(now.since, left.since),
      expiresAt: Math.max(now.expiresAt, left.expiresAt),
    });
  }

  private live(claimant: string, now: number): Left | undefined {
    const left = this.byClaimant.get(claimant);
    if (left !== undefined && left.expiresAt <= now) this.byClaimant.delete(claimant);
    return this.byClaimant.get(claimant);
  }
}
