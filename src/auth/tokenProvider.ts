import { FOURTEEN_DAYS_MS, HOUR_MS, renewalTimeMs } from './tokenLifetime';

export interface TokenProviderOptions {
  /** Signs in and resolves with a fresh bearer token. */
  signIn: () => Promise<string>;
  now?: () => number;
  /** How long before expiry a token is replaced. Default: 1 hour. */
  safetyMarginMs?: number;
  /** Lifetime assumed when the token carries no usable `exp`. Default: 14 days, the documented validity. */
  fallbackTtlMs?: number;
  /** Told when a sign-in starts and why: the first token, renewal ahead of expiry, or after a rejection (metrics). */
  onSignIn?: (reason: SignInReason) => void;
}

export type SignInReason = 'initial' | 'expiry' | 'rejected';

interface CurrentToken {
  token: string;
  renewAtMs: number;
}

/**
 * The process-wide holder of the reporting API's bearer token. There is no
 * refresh endpoint, so "renewing" means signing in again; sign-in has a tight
 * rate budget, so every path here makes sure concurrent callers share one
 * sign-in instead of each starting their own.
 */
export class TokenProvider {
  private readonly signIn: () => Promise<string>;
  private readonly now: () => number;
  private readonly safetyMarginMs: number;
  private readonly fallbackTtlMs: number;
  private readonly onSignIn: (reason: SignInReason) => void;
  private current: CurrentToken | undefined;
  /** The sign-in in flight, shared by everyone who needs a token meanwhile. */
  private pending: Promise<string> | undefined;

  constructor(options: TokenProviderOptions) {
    this.signIn = options.signIn;
    this.now = options.now ?? Date.now;
    this.safetyMarginMs = options.safetyMarginMs ?? HOUR_MS;
    this.fallbackTtlMs = options.fallbackTtlMs ?? FOURTEEN_DAYS_MS;
    this.onSignIn = options.onSignIn ?? (() => {});
  }

  getToken(): Promise<string> {
    if (this.current !== undefined && this.now() < this.current.renewAtMs) {
      return Promise.resolve(this.current.token);
    }
    return this.signInOnce(this.current === undefined ? 'initial' : 'expiry');
  }

  /**
   * Called after the upstream rejected `rejectedToken`. Many requests that
   * used the same token fail together; only the first of them should sign in
   * again, the others get the token it produced.
   */
  renew(rejectedToken: string): Promise<string> {
    if (this.pending !== undefined) return this.pending;
    if (this.current !== undefined && this.current.token !== rejectedToken) return this.getToken();
    this.current = undefined;
    return this.signInOnce('rejected');
  }

  private signInOnce(reason: SignInReason): Promise<string> {
    if (this.pending === undefined) {
      this.onSignIn(reason);
      const startedAtMs = this.now();
      // A failure is not cached: it rejects everyone waiting now, and the next call tries again.
      this.pending = this.signIn()
        .then((token) => {
          this.current = { token, renewAtMs: this.renewalTime(token, startedAtMs) };
          return token;
        })
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }

  private renewalTime(token: string, issuedAtMs: number): number {
    return renewalTimeMs(token, issuedAtMs, { safetyMarginMs: this.safetyMarginMs, fallbackTtlMs: this.fallbackTtlMs });
  }
}
