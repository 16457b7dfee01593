import { LIVE_MAX_ROWS_PER_PAGE, MAX_LIMIT } from '../contract';
import { PROFILE_BUDGETS, type ProfileName, type RateOptions } from '../contract/emulatorSettings';
import type { Target } from './control/targets';
import type { Metric } from './dashboard/types';

/**
 * The emulator's profiles (docs/upstream-contract.md §5). `default` is for
 * comfortable development; `realistic` behaves like the live reporting API as
 * far as public clients have seen it, so the subgraph can be tried against it
 * before an account exists. An option or `EMULATOR_*` variable given
 * explicitly wins over its profile's value. The names, budgets and token
 * lifetimes are shared with the subgraph (contract/emulatorSettings.ts).
 */

/** Inclusive bounds of the latency added to one request, in ms. */
export interface LatencyRange {
  minMs: number;
  maxMs: number;
}

export interface ProfileRules {
  tokenTtlSeconds: number;
  rates: Readonly<RateOptions>;
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
    ...PROFILE_BUDGETS.default,
    maxRowsPerPage: MAX_LIMIT,
    unplannedMetrics: [],
    latency: null,
  },
  realistic: {
    ...PROFILE_BUDGETS.realistic,
    maxRowsPerPage: LIVE_MAX_ROWS_PER_PAGE,
    unplannedMetrics: AD_AND_REVENUE_METRICS,
    latency: {
      dashboard: { minMs: 300, maxMs: 900 },
      render: { minMs: 40, maxMs: 120 },
      signin: { minMs: 200, maxMs: 400 },
    },
  },
};
