import { invalidParams, ok, type Outcome } from '../outcome';
import type { EmulatorStore } from '../store';
import { aggregate } from './engine';
import { buildResults } from './result';
import type { DashboardMetricResult, Metric } from './types';
import { validateDashboardQuery } from './validate';

/** What the account's plan allows (the profile's rules, see profiles.ts). */
export interface DashboardPlan {
  /** Most grouped rows one page carries; a larger `limit` gets this many. */
  maxRowsPerPage: number;
  /** A valid query naming one of these answers 200 with an empty body, as the live API does [seen]. */
  unplannedMetrics: readonly Metric[];
}

/**
 * `POST /api/dashboard/query` without HTTP and auth (docs/upstream-contract.md §2):
 * a 400 naming every offending field, or one result per requested metric.
 * `now` is the emulator's clock, the end of `last` windows.
 */
export function runDashboardQuery(store: EmulatorStore, body: unknown, now: number): Outcome<DashboardMetricResult[]> {
  const validation = validateDashboardQuery(body, now);
  if (!validation.ok) return invalidParams(validation.errors);
  return ok(buildResults(validation.query, aggregate(store, validation.query)));
}

/**
 * The same within an account's plan: `null` stands for "200 with an empty
 * body" (a metric outside the plan), and pages hold at most the plan's rows.
 */
export function runPlannedDashboardQuery(
  store: EmulatorStore,
  body: unknown,
  now: number,
  plan: DashboardPlan,
): Outcome<DashboardMetricResult[] | null> {
  const validation = validateDashboardQuery(body, now);
  if (!validation.ok) return invalidParams(validation.errors);
  const query = validation.query;
  if (query.metrics.some((metric) => plan.unplannedMetrics.includes(metric))) return ok(null);
  const capped = { ...query, limit: Math.min(query.limit, plan.maxRowsPerPage) };
  return ok(buildResults(capped, aggregate(store, capped)));
}
