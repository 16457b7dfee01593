import type { Random } from './random';

/**
 * Relative activity by UTC hour: quiet nights, a morning peak and a larger
 * evening one. Publishing and reading both follow it, so hourly series have a
 * daily rhythm instead of flat noise.
 */
const ACTIVITY_BY_HOUR = [
  0.25, 0.18, 0.14, 0.12, 0.14, 0.25, 0.5, 0.8, 0.95, 0.9, 0.85, 0.85, 0.9, 0.85, 0.8, 0.8, 0.85, 0.9, 0.95, 1, 0.95, 0.8, 0.6, 0.4,
];

const HOUR_MS = 3_600_000;

/** Rejection sampling against the curve: keep `time` with the probability of its hour's activity. */
export function diurnalAccepts(random: Random, time: number): boolean {
  const hour = Math.floor(time / HOUR_MS) % 24;
  return random.next() < ACTIVITY_BY_HOUR[hour];
}
