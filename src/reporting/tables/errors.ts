import type { MetricName } from '../../upstream/datasources/wire';
import { DASHBOARD_QUERY_PATH } from '../../upstream/datasources/reportingAPI';
import { failurePolicyOf, UpstreamError } from '../../upstream/failures/upstreamError';
import { Metric } from '../../graphql/enums';

const GRAPHQL_NAME = new Map<string, string>(Object.entries(Metric).map(([name, wire]) => [wire, name]));

/** The ask waited as long as it may and no unit came: the same refusal the governor gives. */
export function refused(retryAfterMs: number): UpstreamError {
  return new UpstreamError({
    service: 'reporting',
    endpoint: DASHBOARD_QUERY_PATH,
    kind: 'budget_exhausted',
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
  });
}

/** A metric the account's plan was found not to allow: no query asks for it again. */
export function metricUnavailable(metric: MetricName): UpstreamError {
  return new UpstreamError({
    service: 'reporting',
    endpoint: DASHBOARD_QUERY_PATH,
    kind: 'metric_unavailable',
    status: 200,
    metrics: [GRAPHQL_NAME.get(metric) ?? metric],
  });
}

/** The governor refused for want of a slot and names the next one: the ask waits for it (failure policy `waitForSlot`). */
export function waitsForSlot(error: unknown): error is UpstreamError {
  return failurePolicyOf(error)?.waitForSlot === true;
}

/** A metric of the query is outside the plan and the upstream does not say which (failure policy `splitOnEmptyBody`). */
export function splitsOnEmptyBody(error: unknown): error is UpstreamError {
  return failurePolicyOf(error)?.splitOnEmptyBody === true;
}

/**
 * A failure of a query the tables built (never the API client's words): a
 * refusal the failure policy says no client input can fix becomes the
 * upstream's unexpected answer, naming what it said.
 */
export function builtQueryFailure(error: unknown): Error {
  if (!(error instanceof UpstreamError)) return error instanceof Error ? error : new Error(`dashboard query failed: ${String(error)}`);
  if (failurePolicyOf(error)?.ownQuery !== 'bad_response') return error;
  const said = error.upstreamMessage === undefined ? '' : `: ${error.upstreamMessage}`;
  return new UpstreamError({
    service: error.service,
    endpoint: error.endpoint,
    kind: 'bad_response',
    ...(error.status === undefined ? {} : { status: error.status }),
    reason: `it refused a query the subgraph built (HTTP ${error.status ?? 'error'}${said})`,
  });
}
