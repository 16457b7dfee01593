/**
 * The emulator's one seeded PRNG (mulberry32). The demo data and the fault
 * hit patterns (control/faults.ts) must be identical for the same seed on
 * every machine and Node version, which Math.random cannot give.
 * Not for anything secret.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /**
   * An independent stream for one phase of generation, so that drawing more or
   * fewer numbers in one phase (say, a new article field) does not reshuffle
   * every phase after it.
   */
  static stream(seed: number, phase: number): Random {
    return new Random(mix32(mix32(seed >>> 0) ^ Math.imul(phase + 1, 0x9e3779b9)));
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[this.int(items.length)];
  }

  /** Standard normal deviate (Box–Muller). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1]: log(0) would be -Infinity
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  shuffle<T extends { length: number; [index: number]: unknown }>(items: T): T {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const swap = items[i];
      items[i] = items[j];
      items[j] = swap;
    }
    return items;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}

/** A 32-bit finalizer (murmur3 fmix32): spreads nearby seeds far apart. */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Draws indexes in proportion to fixed non-negative weights, in O(log n) per
 * draw (binary search over the cumulative sums).
 */
export class WeightedChoice {
  private readonly cumulative: Float64Array;
  readonly total: number;

  constructor(weights: ArrayLike<number>) {
    if (weights.length === 0) throw new RangeError('WeightedChoice needs at least one weight');
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i];
      if (!(w >= 0 && Number.isFinite(w))) throw new RangeError(`weight ${i} must be a finite number >= 0, got ${w}`);
      sum += w;
      this.cumulative[i] = sum;
    }
    if (!(sum > 0)) throw new RangeError('WeightedChoice needs a positive total weight');
    this.total = sum;
  }

  draw(random: Random): number {
    const target = random.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
