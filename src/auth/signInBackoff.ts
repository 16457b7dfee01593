import type { SignInErrors, SignInFailureDetails, SignInFailureReason } from './signInErrors';

const SECOND_MS = 1_000;

export interface SignInBackoffOptions {
  /** First pause after a refused sign-in (400/401/403: credentials, role, SSO). SIGNIN_FAILURE_BACKOFF_SECONDS; default 60 s. */
  refusedBaseMs: number;
  /** The refused pause doubles while sign-in keeps being refused, up to this. Default 15 minutes. */
  refusedMaxMs: number;
  /** First pause after the sign-in host failed (5xx, timeout, network, malformed answer). Default 5 s. */
  unavailableBaseMs: number;
  /** Default 60 s: an outage of the vendor is usually short, and one attempt every minute costs nothing. */
  unavailableMaxMs: number;
}

export type { SignInFailureReason } from './signInErrors';

/** A remembered sign-in failure: plain data, so it can be shared through Redis. Holds no secret (createSignIn scrubs the password). */
export interface SignInFailure {
  reason: SignInFailureReason;
  untilMs: number;
  /** Failures in a row, this one included: the next pause doubles from it. */
  streak: number;
  error: SignInFailureDetails;
}

export type SignInState = { state: 'ok' } | { state: 'backing_off'; reason: SignInFailureReason; until: string; retryAfterSeconds: number };

/** The pause after this failure: the base, doubled for each failure before it in a row, capped. */
export function nextSignInFailure(
  details: SignInFailureDetails,
  reason: SignInFailureReason,
  previous: SignInFailure | undefined,
  nowMs: number,
  options: SignInBackoffOptions,
): SignInFailure {
  const streak = (previous?.streak ?? 0) + 1;
  const [baseMs, maxMs] =
    reason === 'refused' ? [options.refusedBaseMs, options.refusedMaxMs] : [options.unavailableBaseMs, options.unavailableMaxMs];
  const pauseMs = Math.min(Math.max(baseMs, maxMs), baseMs * 2 ** Math.min(streak - 1, 30));
  return { reason, untilMs: nowMs + pauseMs, streak, error: details };
}

/** What every caller during the pause gets: the same error as the failed sign-in, with the seconds left. */
export function backoffError(failure: SignInFailure, nowMs: number, errors: Pick<SignInErrors, 'duringBackoff'>): Error {
  return errors.duringBackoff(failure.error, secondsLeft(failure, nowMs));
}

export function signInState(failure: SignInFailure | undefined, nowMs: number): SignInState {
  if (failure === undefined || nowMs >= failure.untilMs) return { state: 'ok' };
  return {
    state: 'backing_off',
    reason: failure.reason,
    // The latest instant a Date can hold: a far `untilMs` (skew, a bad shared value) never throws RangeError in /health/ready or /metrics.
    until: new Date(Math.min(failure.untilMs, 8.64e15)).toISOString(),
    retryAfterSeconds: secondsLeft(failure, nowMs),
  };
}

/** Seconds until the backoff ends (0 when it has): the `subgraph_upstream_signin_backoff_seconds` gauge. */
export function backoffSeconds(state: SignInState): number {
  return state.state === 'ok' ? 0 : state.retryAfterSeconds;
}

function secondsLeft(failure: SignInFailure, nowMs: number): number {
  return Math.max(1, Math.ceil((failure.untilMs - nowMs) / SECOND_MS));
}
