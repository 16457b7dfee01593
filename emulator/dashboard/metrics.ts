import * as field from './accumulators';
import type { Metric } from './types';

// Field offsets copied into module constants: transpilers that compile imported
// bindings to getters would otherwise put a call in every hot-loop access.
const ADS = field.ADS;
const ARTICLES = field.ARTICLES;
const DURATION = field.DURATION;
const REVENUE_MICROS = field.REVENUE_MICROS;
const RFV_MICROS = field.RFV_MICROS;
const SCROLL = field.SCROLL;
const STRIDE = field.STRIDE;
const USERS = field.USERS;
const VIEWS = field.VIEWS;

/** Metrics that need distinct users, which cost a second pass over the rows. */
const USER_METRICS: readonly Metric[] = ['uniqueUsers', 'averageDurationPerUser', 'pageViewsPerUser', 'RPM'];

export const needsUsers = (metrics: readonly Metric[]) => metrics.some((m) => USER_METRICS.includes(m));
export const needsPageViews = (metrics: readonly Metric[]) => metrics.some((m) => m !== 'newArticles');
export const needsRfv = (metrics: readonly Metric[]) => metrics.includes('averageRFV') || metrics.includes('cumulativeRFV');

/** Ratios are rounded to 4 decimals: enough for any chart, and stable in JSON. */
function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : Math.round((numerator / denominator) * 1e4) / 1e4;
}

/** The metric over row `row` of the sums `s` (definitions: docs/upstream-contract.md §2). */
export function metricValue(metric: Metric, s: Float64Array, row: number): number {
  const o = row * STRIDE;
  switch (metric) {
    case 'pageViewsTotal':
      return s[o + VIEWS];
    case 'uniqueUsers':
      return s[o + USERS];
    case 'totalDuration':
      return s[o + DURATION];
    case 'averageDurationPerUser':
      return ratio(s[o + DURATION], s[o + USERS]);
    case 'averageDurationPerPage':
      return ratio(s[o + DURATION], s[o + VIEWS]);
    case 'pageViewsPerUser':
      return ratio(s[o + VIEWS], s[o + USERS]);
    case 'averageScroll':
      return ratio(s[o + SCROLL], s[o + VIEWS]);
    case 'averageRFV':
      return ratio(s[o + RFV_MICROS], s[o + VIEWS] * 1e6);
    case 'cumulativeRFV':
      return s[o + RFV_MICROS] / 1e6;
    case 'revenueTotal':
      return s[o + REVENUE_MICROS] / 1e6;
    case 'adsImpressions':
      return s[o + ADS];
    case 'CPM':
      // revenue / impressions × 1000, with revenue = micros / 1e6
      return ratio(s[o + REVENUE_MICROS], s[o + ADS] * 1000);
    case 'RPM':
      return ratio(s[o + REVENUE_MICROS], s[o + USERS] * 1000);
    case 'adsPerPage':
      return ratio(s[o + ADS], s[o + VIEWS]);
    case 'newArticles':
      return s[o + ARTICLES];
  }
}
