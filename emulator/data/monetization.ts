import type { DeviceType } from './traffic';

/**
 * Ads and revenue of a page view. Both the generator and the enrichment of
 * ingested rows use these rules, so CPM, RPM and adsPerPage look the same for
 * demo data and for data a test ingests.
 */

/** Ad slots a page has room for, by device. */
const MAX_ADS: Readonly<Record<DeviceType, number>> = { desktop: 6, tablet: 5, mobile: 4 };

/** Base CPM (revenue per 1000 impressions) in micros: 2.40, 1.90 and 1.40 currency units. */
export const CPM_MICROS: Readonly<Record<DeviceType, number>> = {
  desktop: 2_400_000,
  tablet: 1_900_000,
  mobile: 1_400_000,
};

/** Advertisers pay more next to business and tech news than next to sports. */
const SECTION_CPM_FACTOR: ReadonlyMap<string, number> = new Map([
  ['Economy', 1.4],
  ['Technology', 1.3],
  ['Health', 1.15],
  ['Science', 1.1],
  ['Politics', 1],
  ['World', 0.95],
  ['Culture', 0.9],
  ['Sports', 0.85],
]);

/**
 * One impression for the top banner, one more per 30 seconds of reading, up to
 * the device's slots. Subscribers read ad-free.
 */
export function adsImpressionsFor(durationSeconds: number, device: DeviceType, userType: string): number {
  if (userType === 'subscriber') return 0;
  return Math.min(MAX_ADS[device], 1 + Math.floor(durationSeconds / 30));
}

/** Revenue at the device's CPM, adjusted by the article's first section. */
export function revenueMicrosFor(adsImpressions: number, device: DeviceType, sections: readonly string[]): number {
  const factor = SECTION_CPM_FACTOR.get(sections[0] ?? '') ?? 1;
  return Math.round((adsImpressions * CPM_MICROS[device] * factor) / 1000);
}
