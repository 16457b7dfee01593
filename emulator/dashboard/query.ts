import { invalidParams, ok, type Outcome } from '../outcome';
import type { EmulatorStore } from '../store';
import { aggregate } from './engine';
import { buildResults } from './result';
import type { DashboardMetricResult } from './types';
import { validateDashboardQuery } from './validate';

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
