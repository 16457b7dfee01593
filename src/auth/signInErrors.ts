/** `refused`: the vendor said no to our credentials. `unavailable`: the vendor could not answer. */
export type SignInFailureReason = 'refused' | 'unavailable';

/**
 * A failed sign-in's details as plain data, as the upstream room describes
 * its errors: shared through Redis and shown to clients, so never a secret.
 * Auth only keeps them and hands them back (SignInErrors.duringBackoff).
 */
export type SignInFailureDetails = object;

/**
 * What the token provider needs to know about sign-in errors, provided by
 * the room that makes them (upstream/datasources/signInErrors.ts): auth sits
 * beside the call path and never imports it.
 */
export interface SignInErrors {
  /** Whether this sign-in error is remembered, why, and what of it; undefined: not the vendor's answer (rethrown, the next call tries again). */
  remembered(error: unknown): { reason: SignInFailureReason; details: SignInFailureDetails } | undefined;
  /** What every caller gets during the backoff: the failure's error, with the seconds left. */
  duringBackoff(details: SignInFailureDetails, retryAfterSeconds: number): Error;
  /** The vendor refused the token this process had just signed in for, on its first use. */
  readonly tokenRefused: SignInFailureDetails;
}
