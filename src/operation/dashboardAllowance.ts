import DataLoader from 'dataloader';
import type { Served } from '../upstream/datasources/fetched';
import type { DashboardMetricResultWire, DashboardQueryBody } from '../upstream/datasources/wire';
import type { DashboardEndpoint } from '../upstream/endpoints/dashboard';
import { dashboardBodyKey } from '../upstream/keys';
import type { UpstreamAllowance } from './upstreamAllowance';

type DashboardAnswer = Served<DashboardMetricResultWire[]>;

/**
 * The dashboard endpoint for one operation, each distinct dashboard query
 * taking one call from the operation's allowance: 500 aliased `dashboard`
 * fields with different arguments are 500 calls just as 500
 * `recommendations` are, while identical ones share one answer (and one
 * unit), like the render.json loader. The de-dup is a DataLoader keyed by the
 * body's part of the answer key (keys.ts), as for every endpoint within an
 * operation; not batched, since the upstream takes one query per call and
 * each answer should reach its field as soon as it comes. Per request only:
 * its cache holds this caller's answers.
 */
export function withDashboardAllowance(dashboard: DashboardEndpoint, allowance: UpstreamAllowance): DashboardEndpoint {
  const loader = new DataLoader<DashboardQueryBody, DashboardAnswer, string>(
    (bodies) => Promise.all(bodies.map((body) => (allowance.tryTake() ? dashboard.query(body).catch(asError) : allowance.exceededError()))),
    { batch: false, cacheKeyFn: dashboardBodyKey, name: 'dashboard' },
  );
  return { query: (body) => loader.load(body) };
}

/** DataLoader treats only Error instances as failures; anything else thrown would be cached as a value. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`dashboard query failed: ${String(reason)}`);
}
