/** How long an ask keeps counting: its weight halves every minute, so the last few minutes decide. */
export const DEMAND_HALF_LIFE_MS = 60_000;

/** Asks per table, decayed: the refresh order (the most demanded first). Bounded by entries. */
export class Demand {
  private readonly scores = new Map<string, { score: number; at: number }>();

  constructor(private readonly maxEntries = 1_000) {}

  record(key: string, now: number): void {
    const score = this.score(key, now) + 1;
    this.scores.delete(key);
    this.scores.set(key, { score, at: now });
    for (const oldest of this.scores.keys()) {
      if (this.scores.size <= this.maxEntries) break;
      this.scores.delete(oldest);
    }
  }

  score(key: string, now: number): number {
    const entry = this.scores.get(key);
    if (entry === undefined) return 0;
    return entry.score * 0.5 ** (Math.max(0, now - entry.at) / DEMAND_HALF_LIFE_MS);
  }
}
