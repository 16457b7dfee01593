import type { RenewalReason } from '../kernel/observer';
import type { SignInFailure } from './signInBackoff';

/** Why a sign-in starts: the first token, renewal ahead of expiry, or after the upstream refused the token (401). */
export type SignInReason = 'initial' | RenewalReason;

/** A token with what every replica needs to judge it the same way. Never holds the password. */
export interface IssuedToken {
  token: string;
  /** When the sign-in that produced it started: tells a newer token from an older one. */
  issuedAtMs: number;
  renewAtMs: number;
}

/**
 * A sign-in's result as data: a token, or a failure to remember. `shared`:
 * Redis holds the failure (read from it, or written to it), so it lasts no
 * longer than the key there; otherwise this replica keeps it for its backoff.
 */
export type SignInOutcome = { token: IssuedToken } | { failure: SignInFailure; shared: boolean };

/** Why the provider needs a new token. */
export interface TokenDemand {
  reason: SignInReason;
  /** The token the upstream refused (after a 401): it must not come back. */
  rejectedToken?: string;
  /** Only a token issued at or after this (and not the refused one) replaces the refused one: Redis may still hold an older one. */
  notBeforeMs: number;
  /**
   * The failure this replica is backing off from, when it looks whether the
   * shared one is still there: without an answer from Redis it stands, and no
   * sign-in is tried.
   */
  backingOff?: SignInFailure;
}

/**
 * Where the TokenProvider gets a new token when it holds none usable. The
 * in-process default signs in; the Redis one (redis/upstream/redisTokenExchange.ts) first
 * takes a token or a remembered failure another replica shared, and signs in
 * only as the holder of the cluster-wide lock. `signIn` is the provider's
 * own (counted, classified); an exchange calls it at most once per demand.
 */
export interface TokenExchange {
  obtain(demand: TokenDemand, signIn: () => Promise<SignInOutcome>): Promise<SignInOutcome>;
  /** Offers a failure this process met outside a sign-in (its fresh token refused) to the others; resolves whether it is now shared. */
  share?(failure: SignInFailure): Promise<boolean>;
  /** The failure the others share now: 'none' when there is none, 'away' when the shared store cannot say. A read, never a sign-in. */
  sharedFailure?(): Promise<SignInFailure | 'none' | 'away'>;
}

export const SIGN_IN_DIRECTLY: TokenExchange = { obtain: (_demand, signIn) => signIn() };
