import type { Target } from './control/targets';
import type { Metric } from './dashboard/types';

/**
 * The emulator's profiles (docs/upstream-contract.md §5). `default` is for
 * comfortable development; `realistic` behaves like the live reporting API as
 * far as public clients have seen it, so the subgraph can be tried against it
 * before an account exists. An option or `EMULATOR_*` variable given
 * explicitly wins over its profile's value.
 */
export const PROFILE_NAMES = ['default', 'realistic'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export function isProfileName(value: unknown): value is ProfileName {
  return (PROFILE_NAMES as readonly unknown[]).includes(value);
}

/** Inclusive bounds of the latency added to one request, in ms. */
export interface LatencyRange {
  minMs: number;
  maxMs: number;
}

export interface ProfileRules {
  tokenTtlSeconds: number;
  rates: { reportingPerMinute: number; signinPerMinute: number; renderPerMinute: number };
  /** Most grouped rows one dashboard page carries; a larger `limit` gets this many. */
  maxRowsPerPage: number;
  /** Metrics outside the account's plan: a valid query naming one answers 200 with an empty body. */
  unplannedMetrics: readonly Metric[];
  /** Latency added per endpoint, drawn from the seed; null answers as fast as it can. */
  latency: Readonly<Record<Target, LatencyRange>> | null;
}

/** The ad and revenue metrics: the live API's plans without them answer 200 with an empty body [seen]. */
const AD_AND_REVENUE_METRICS: readonly Metric[] = ['revenueTotal', 'adsImpressions', 'CPM', 'RPM', 'adsPerPage'];

export const PROFILES: Readonly<Record<ProfileName, ProfileRules>> = {
  default: {
    tokenTtlSeconds: 14 * 24 * 60 * 60,
    rates: { reportingPerMinute: 600, signinPerMinute: 20, renderPerMinute: 6000 },
    maxRowsPerPage: 1000,
    unplannedMetrics: [],
    latency: null,
  },
  realistic: {
    // The vendor's current public docs: tokens last up to 30 minutes [docs].
    tokenTtlSeconds: 30 * 60,
    // Public clients wait about 65 s between dashboard queries [seen].
    rates: { reportingPerMinute: 1, signinPerMinute: 20, renderPerMinute: 6000 },
    // Public clients read at most about 500 rows per query [seen].
    maxRowsPerPage: 500,
    unplannedMetrics: AD_AND_REVENUE_METRICS,
    latency: {
      dashboard: { minMs: 300, maxMs: 900 },
      render: { minMs: 40, maxMs: 120 },
      signin: { minMs: 200, maxMs: 400 },
    },
  },
};
