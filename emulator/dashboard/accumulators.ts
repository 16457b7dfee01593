/**
 * Sums kept per total, per bucket, per cell and per group, as rows of a flat
 * Float64Array. Every field is an integer count or sum (revenue and RFV in
 * millionths), so the additive metrics add up exactly across groups and
 * buckets; conversion to units happens once, in metrics.ts.
 */
export const VIEWS = 0;
export const DURATION = 1;
export const SCROLL = 2;
export const RFV_MICROS = 3;
export const ADS = 4;
export const REVENUE_MICROS = 5;
export const USERS = 6;
export const ARTICLES = 7;
export const STRIDE = 8;

export class Accumulators {
  data: Float64Array;

  constructor(rows: number) {
    this.data = new Float64Array(Math.max(1, rows) * STRIDE);
  }

  /** Makes room for `rows` rows; `data` may be replaced. */
  ensure(rows: number): void {
    if (rows * STRIDE <= this.data.length) return;
    const next = new Float64Array(Math.max(rows * STRIDE, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }

  /** Adds row `from` of `source` to row `to` of this (USERS excluded: users do not add up). */
  addRow(to: number, source: Accumulators, from: number): void {
    const t = to * STRIDE;
    const f = from * STRIDE;
    const s = source.data;
    const d = this.data;
    for (let k = 0; k < STRIDE; k++) if (k !== USERS) d[t + k] += s[f + k];
  }
}
