import type { MetricName } from '../../kernel/wire';
import { DASHBOARD_QUERY_PATH, metricUnavailable as metricUnavailableError } from '../../upstream/datasources/reportingAPI';
import { failurePolicyOf, UpstreamError } from '../../kernel/failures/upstreamError';

/**
 * The ask waited as long as it may and no slot came (or its slot comes after
 * its deadline): `budget_exhausted` on the dashboard endpoint, with the whole
 * seconds until the slot the reporting budget's bucket names.
 */
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
  return metricUnavailableError([metric]);
}

/** Refused for want of a slot (the budget's bucket, or a 429's pause) naming the next one: the ask waits for it (failure policy `waitForSlot`). */
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

/**
 * The caller asked for as many tables no store held as it may
 * (ANALYTICS_NEW_TABLES_PER_CALLER over DASHBOARD_SHARE_WINDOW_SECONDS):
 * refused before any wait, with the seconds until it has room again.
 */
export function newTablesSpent(retryAfterMs: number): UpstreamError {
  return callerRefusal('caller_tables_spent', retryAfterMs);
}

/**
 * The caller's dashboards spent their fair share of the reporting budget
 * (DASHBOARD_SHARE_PER_CALLER over DASHBOARD_SHARE_WINDOW_SECONDS): refused
 * before any try, with the seconds until the caller has room again.
 */
export function shareSpent(retryAfterMs: number): UpstreamError {
  return callerRefusal('caller_share_spent', retryAfterMs);
}

/** A refusal of the caller's own ask, before any wait or try: the dashboard endpoint, with the whole seconds until it has room. */
function callerRefusal(kind: 'caller_tables_spent' | 'caller_share_spent', retryAfterMs: number): UpstreamError {
  return new UpstreamError({
    service: 'reporting',
    endpoint: DASHBOARD_QUERY_PATH,
    kind,
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
  });
}
