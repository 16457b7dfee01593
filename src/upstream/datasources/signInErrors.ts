import type { SignInFailure } from '../../auth/signInBackoff';
import type { SignInErrors, SignInFailureDetails, SignInFailureReason } from '../../auth/signInErrors';
import { UpstreamError, failurePolicyOf, type UpstreamErrorDetails } from '../../kernel/failures/upstreamError';
import { DASHBOARD_QUERY_PATH } from './reportingAPI';

/**
 * What the reporting API's sign-in errors mean to the token provider (auth/),
 * which knows no upstream error: which are remembered, the error callers get
 * during a backoff, and the refusal of a token just signed in for. The
 * details auth keeps are the UpstreamError's fields, as plain data.
 */
export const REPORTING_SIGN_IN_ERRORS: SignInErrors = {
  remembered(error) {
    const reason = classifySignInFailure(error);
    return reason === undefined || !(error instanceof UpstreamError) ? undefined : { reason, details: detailsOf(error) };
  },
  duringBackoff: (details, retryAfterSeconds) => new UpstreamError({ ...upstreamDetails(details), retryAfterSeconds }),
  tokenRefused: { service: 'reporting', endpoint: DASHBOARD_QUERY_PATH, kind: 'http', status: 401 } satisfies UpstreamErrorDetails,
};

/**
 * Which failures are remembered: the failure policy's `signInBackoff` column
 * (failures/policy.ts). A refusal of our configuration and a failing host
 * are; a local refusal or a 429 carries its own wait, and a non-upstream
 * error is a bug, not the vendor's answer.
 */
export function classifySignInFailure(error: unknown): SignInFailureReason | undefined {
  return failurePolicyOf(error)?.signInBackoff;
}

/** Reads a failure shared through Redis; anything malformed counts as none. */
export function parseSignInFailure(value: unknown): SignInFailure | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { reason, untilMs, streak, error } = value as Record<string, unknown>;
  if (reason !== 'refused' && reason !== 'unavailable') return undefined;
  if (typeof untilMs !== 'number' || typeof streak !== 'number' || typeof error !== 'object' || error === null) return undefined;
  const { service, endpoint, kind } = error as Record<string, unknown>;
  if (service !== 'reporting' || typeof endpoint !== 'string' || typeof kind !== 'string') return undefined;
  // Rebuilt through UpstreamError so a tampered entry is scrubbed and typed like any upstream error.
  return { reason, untilMs, streak, error: detailsOf(new UpstreamError(error as UpstreamErrorDetails)) };
}

/** The vendor's message and field errors stay with the replica that received them; other replicas get the kind and status only. */
export function withoutUpstreamWords(details: SignInFailureDetails): SignInFailureDetails {
  const { upstreamMessage: _message, upstreamErrors: _errors, ...rest } = upstreamDetails(details);
  return rest;
}

/** Auth holds only details this module made (remembered, tokenRefused, parseSignInFailure): UpstreamError fields. */
function upstreamDetails(details: SignInFailureDetails): UpstreamErrorDetails {
  return details as UpstreamErrorDetails;
}

function detailsOf(error: UpstreamError): UpstreamErrorDetails {
  const details: UpstreamErrorDetails = { service: error.service, endpoint: error.endpoint, kind: error.kind };
  if (error.status !== undefined) details.status = error.status;
  if (error.upstreamMessage !== undefined) details.upstreamMessage = error.upstreamMessage;
  if (error.upstreamErrors !== undefined) details.upstreamErrors = error.upstreamErrors;
  if (error.reason !== undefined) details.reason = error.reason;
  if (error.timeoutMs !== undefined) details.timeoutMs = error.timeoutMs;
  return details;
}
