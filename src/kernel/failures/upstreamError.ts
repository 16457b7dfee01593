import { redactCredentials } from '../../redaction/redactCredentials';
// The table module itself, not ../errors: through the index it would import this file back.
import { describeUpstreamFailure } from './upstreamErrorTable';
import { policyOfDetails, type FailurePolicy } from './policy';
import type { UpstreamErrorDetails, UpstreamErrorKind, UpstreamFieldError, UpstreamService } from './failureDetails';

/** Upstream-provided text (messages, field errors) is cut to this length before we log or return it. */
const MAX_UPSTREAM_TEXT_LENGTH = 500;

export type { UpstreamErrorDetails, UpstreamErrorKind, UpstreamFieldError, UpstreamService } from './failureDetails';

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
