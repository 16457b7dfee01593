import { redactCredentials } from '../../redaction/redactCredentials';
// The table module itself, not ../errors: through the index it would import this file back.
import { describeUpstreamFailure } from './upstreamErrorTable';
import { policyOfDetails, type FailurePolicy } from './policy';

/** Upstream-provided text (messages, field errors) is cut to this length before we log or return it. */
const MAX_UPSTREAM_TEXT_LENGTH = 500;

export type UpstreamService = 'reporting' | 'recommender';

/**
 * - `http`: the upstream answered with a non-2xx status
 * - `timeout`: no complete answer within the time budget
 * - `network`: the connection failed (refused, reset, DNS, ...)
 * - `bad_response`: a 2xx whose body is not the JSON shape the contract promises
 * - `budget_exhausted`: refused locally by the rate governor, never sent (the budget would answer 429)
 * - `circuit_open`: refused locally because the upstream's circuit breaker is open
 * - `metric_unavailable`: the dashboard answered 200 with an empty body, the live API's way of saying that
 *   a requested metric is not recognised for the account (contract §2). About the question, not an outage:
 *   never retried, never cached, never counted by the circuit breaker, never hidden behind a stale answer.
 */
export type UpstreamErrorKind =
  'http' | 'timeout' | 'network' | 'bad_response' | 'budget_exhausted' | 'circuit_open' | 'metric_unavailable';

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

const MAX_FIELD_ERRORS = 50;

/**
 * Everything the subgraph knows about a failed upstream call, as plain data.
 * The constructor scrubs bearer tokens and JWTs out of every upstream-provided
 * string, so an UpstreamError never carries one even if an upstream echoes it.
 * It deliberately keeps no `cause`: library errors are reduced to their code.
 */
export class UpstreamError extends Error implements UpstreamErrorDetails {
  readonly service: UpstreamService;
  readonly endpoint: string;
  readonly kind: UpstreamErrorKind;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
  readonly upstreamMessage?: string;
  readonly upstreamErrors?: UpstreamFieldError[];
  readonly reason?: string;
  readonly timeoutMs?: number;
  readonly metrics?: string[];

  constructor(details: UpstreamErrorDetails) {
    const clean = scrubDetails(details);
    super(describeUpstreamFailure(clean));
    this.name = 'UpstreamError';
    this.service = clean.service;
    this.endpoint = clean.endpoint;
    this.kind = clean.kind;
    if (clean.status !== undefined) this.status = clean.status;
    if (clean.retryAfterSeconds !== undefined) this.retryAfterSeconds = clean.retryAfterSeconds;
    if (clean.upstreamMessage !== undefined) this.upstreamMessage = clean.upstreamMessage;
    if (clean.upstreamErrors !== undefined) this.upstreamErrors = clean.upstreamErrors;
    if (clean.reason !== undefined) this.reason = clean.reason;
    if (clean.timeoutMs !== undefined) this.timeoutMs = clean.timeoutMs;
    if (clean.metrics !== undefined) this.metrics = clean.metrics;
  }

  /** A copy with extra secrets (e.g. the sign-in password) removed from the upstream's strings. */
  withSecretsRemoved(secrets: readonly string[]): UpstreamError {
    return new UpstreamError(scrubDetails(this, secrets));
  }
}

function scrubDetails(details: UpstreamErrorDetails, secrets: readonly string[] = []): UpstreamErrorDetails {
  const scrub = (text: string | undefined) =>
    text === undefined ? undefined : redactCredentials(text, { secrets, maxLength: MAX_UPSTREAM_TEXT_LENGTH });
  const upstreamErrors = details.upstreamErrors?.slice(0, MAX_FIELD_ERRORS).map((fieldError) => {
    const clean: UpstreamFieldError = {};
    const path = scrub(fieldError.path);
    const message = scrub(fieldError.message);
    if (path !== undefined) clean.path = path;
    if (message !== undefined) clean.message = message;
    return clean;
  });
  const clean: UpstreamErrorDetails = { service: details.service, endpoint: details.endpoint, kind: details.kind };
  if (details.status !== undefined) clean.status = details.status;
  if (details.retryAfterSeconds !== undefined) clean.retryAfterSeconds = details.retryAfterSeconds;
  const upstreamMessage = scrub(details.upstreamMessage);
  if (upstreamMessage !== undefined) clean.upstreamMessage = upstreamMessage;
  if (upstreamErrors !== undefined) clean.upstreamErrors = upstreamErrors;
  const reason = scrub(details.reason);
  if (reason !== undefined) clean.reason = reason;
  if (details.timeoutMs !== undefined) clean.timeoutMs = details.timeoutMs;
  if (details.metrics !== undefined) clean.metrics = [...details.metrics];
  return clean;
}

/** The failure policy (policy.ts) of a caught error; undefined for anything that is not an upstream failure (a bug: never retried, hidden or counted). */
export function failurePolicyOf(error: unknown): FailurePolicy | undefined {
  return error instanceof UpstreamError ? policyOfDetails(error) : undefined;
}
