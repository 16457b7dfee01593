import { Random } from '../data/random';
import type { LatencyRange } from '../profiles';
import { TARGETS, type Target } from './targets';

/** Phases of the seeded streams, apart from the demo data's and the faults'. */
const LATENCY_PHASE = 1_000;

/**
 * The latency a profile adds to each request of an endpoint: uniform within
 * the endpoint's range, drawn from a stream seeded per endpoint, so the same
 * seed and the same request sequence always wait the same (reproducible
 * benchmarks), and one endpoint's traffic never shifts another's draws.
 */
export class Latency {
  private readonly streams: Map<Target, { range: LatencyRange; random: Random }>;

  constructor(seed: number, ranges: Readonly<Record<Target, LatencyRange>> | null) {
    this.streams = new Map(
      ranges === null
        ? []
        : TARGETS.map((target, i) => [target, { range: ranges[target], random: Random.stream(seed, LATENCY_PHASE + i) }]),
    );
  }

  /** Milliseconds to wait before handling the next request of `target`; 0 when the profile adds none. */
  next(target: Target): number {
    const stream = this.streams.get(target);
    if (!stream) return 0;
    const { minMs, maxMs } = stream.range;
    return minMs + stream.random.int(maxMs - minMs + 1);
  }
}
