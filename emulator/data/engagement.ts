import type { Random } from './random';
import type { DeviceType } from './traffic';

/** Median read time in seconds; people read shorter on phones. */
const MEDIAN_SECONDS: Readonly<Record<DeviceType, number>> = { desktop: 70, tablet: 60, mobile: 45 };
const MAX_SECONDS = 1800;
const BOUNCE_SHARE = 0.07;

/** Read time of a generated view: log-normal around the device median, plus some bounces. */
export function drawDurationSeconds(random: Random, device: DeviceType, loyal: boolean): number {
  if (random.chance(BOUNCE_SHARE)) return random.int(5);
  const median = MEDIAN_SECONDS[device] * (loyal ? 1.3 : 1);
  return Math.min(MAX_SECONDS, Math.round(median * Math.exp(0.85 * random.normal())));
}

/**
 * How far a reader typically scrolls in `durationSeconds`: quickly at first,
 * then levelling off. Ingested rows without a scroll value get exactly this.
 */
export function typicalScroll(durationSeconds: number): number {
  return Math.round(100 * (1 - Math.exp(-durationSeconds / 90)));
}

/** Scroll of a generated view: the typical value with some reader-to-reader noise. */
export function drawScroll(random: Random, durationSeconds: number): number {
  if (durationSeconds < 5) return random.int(15);
  const scroll = typicalScroll(durationSeconds) + Math.round(12 * random.normal());
  return Math.max(0, Math.min(100, scroll));
}
