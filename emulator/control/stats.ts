import { TARGETS, type Target } from './targets';

export interface TargetStats {
  count: number;
  distinct: number;
}

export type StatsSnapshot = Record<Target, TargetStats>;

/**
 * Requests per upstream endpoint and how many distinct parameter sets they
 * carried — what a test needs to prove that the subgraph batches, caches and
 * deduplicates its upstream calls.
 */
export class RequestStats {
  private counts = new Map<Target, number>();
  private keys = new Map<Target, Set<string>>();

  record(target: Target, distinctKey: string): void {
    this.counts.set(target, (this.counts.get(target) ?? 0) + 1);
    let keys = this.keys.get(target);
    if (!keys) {
      keys = new Set();
      this.keys.set(target, keys);
    }
    keys.add(distinctKey);
  }

  snapshot(): StatsSnapshot {
    const entries = TARGETS.map((t) => [t, { count: this.counts.get(t) ?? 0, distinct: this.keys.get(t)?.size ?? 0 }]);
    return Object.fromEntries(entries) as StatsSnapshot;
  }

  reset(): void {
    this.counts = new Map();
    this.keys = new Map();
  }
}

/** JSON with object keys sorted at every level, so equal bodies give equal keys. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, sortKeys(record[k])]),
    );
  }
  return value;
}
