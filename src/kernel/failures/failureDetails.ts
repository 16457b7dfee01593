/**
 * What is known of a failed upstream call, as plain types: the error class
 * (upstreamError.ts), the failure policy (policy.ts) and the message table
 * (upstreamErrorTable.ts) all read them, and none imports another for them.
 */

export type UpstreamService = 'reporting' | 'recommender';

/**
 * - `http`: the upstream answered with a non-2xx status
 * - `timeout`: no complete answer within the time allowed
 * - `network`: the connection failed (refused, reset, DNS, ...)
 * - `bad_response`: a 2xx whose body is not the JSON shape the contract promises
 * - `budget_exhausted`: refused locally by the rate governor, never sent (the budget would answer 429)
 * - `circuit_open`: refused locally because the upstream's circuit breaker is open
 * - `caller_share_spent`: refused locally because the caller's dashboards spent their fair share of the reporting
 *   budget (DASHBOARD_SHARE_PER_CALLER over DASHBOARD_SHARE_WINDOW_SECONDS); `retryAfterSeconds` says when it has room
 * - `caller_tables_spent`: refused locally because the caller asked for as many tables no replica held as it may
 *   (ANALYTICS_NEW_TABLES_PER_CALLER over DASHBOARD_SHARE_WINDOW_SECONDS); `retryAfterSeconds` says when it has room
 * - `metric_unavailable`: the dashboard answered 200 with an empty body, the live API's way of saying that
 *   a requested metric is not recognised for the account (contract §2). About the question, not an outage:
 *   never retried, never cached, never counted by the circuit breaker, never hidden behind a stale answer.
 */
export type UpstreamErrorKind =
  | 'http'
  | 'timeout'
  | 'network'
  | 'bad_response'
  | 'budget_exhausted'
  | 'circuit_open'
  | 'metric_unavailable'
  | 'caller_share_spent'
  | 'caller_tables_spent';

export interface UpstreamFieldError {
  path?: string;
  message?: string;
}

export interface UpstreamErrorDetails {
  service: UpstreamService;
  /** The endpoint's path, e.g. `/api/dashboard/query`; never a full URL (query strings carry reader ids). */
  endpoint: string;
  kind: UpstreamErrorKind;
  status?: number;
  retryAfterSeconds?: number;
  /** The upstream's own `msg`, for example "API role not enabled for this user". */
  upstreamMessage?: string;
  upstreamErrors?: UpstreamFieldError[];
  /** Our own words: the network error code, or what was wrong with a bad response. */
  reason?: string;
  timeoutMs?: number;
  /** `metric_unavailable`: the metrics asked for, by their GraphQL names. */
  metrics?: string[];
}
