import {
  backoffError,
  nextSignInFailure,
  signInState,
  type SignInBackoffOptions,
  type SignInFailure,
  type SignInState,
} from './signInBackoff';
import { renewalTimeMs } from './tokenLifetime';
import {
  SIGN_IN_DIRECTLY,
  type IssuedToken,
  type SignInOutcome,
  type SignInReason,
  type TokenDemand,
  type TokenExchange,
} from './tokenExchange';
import { heldSecrets, type HeldSecrets } from '../redaction/secret';
import type { SignInErrors } from './signInErrors';

export interface TokenProviderOptions {
  /** Signs in and resolves with a fresh bearer token. */
  signIn: () => Promise<string>;
  /** What its errors mean (remembered? why?) and what callers get during a backoff: the upstream room's (datasources/signInErrors.ts). */
  errors: SignInErrors;
  now?: () => number;
  /** How long before expiry a token is replaced, at most (a tenth of the lifetime for short tokens): UPSTREAM_PATH_DEFAULTS.tokenRenewal. */
  safetyMarginMs: number;
  /** Lifetime assumed when the token carries no usable `exp` (the documented validity): UPSTREAM_PATH_DEFAULTS.tokenRenewal. */
  fallbackTtlMs: number;
  /**
   * Told when this process starts a sign-in and why: the first token, renewal
   * ahead of expiry, or after a rejection (metrics). With Redis, only the
   * replica that really signs in is told, so the sum over replicas is the
   * number of sign-ins.
   */
  onSignIn?: (reason: SignInReason) => void;
  /** How long a failed sign-in is remembered (see signInBackoff.ts): the configured one (upstreamPathSettings), or SIGN_IN_BACKOFF_DEFAULTS. */
  signInBackoff: SignInBackoffOptions;
  /** Where a new token comes from when this process has none usable. Default: sign in here (no sharing). */
  exchange?: TokenExchange;
  /** Where every token this process holds is registered for redaction at every exit (secret.ts). Default: the process-wide registry. */
  secrets?: Pick<HeldSecrets, 'hold' | 'forget'>;
}

export type { SignInReason } from './tokenExchange';

/**
 * How long a failure Redis holds is taken on trust before Redis is asked
 * again: an operator's `DEL` of the shared failure (or its key's end) frees
 * every replica within this, at the cost of one read per replica and period.
 */
const SHARED_FAILURE_RECHECK_MS = 500;

/**
 * The process-wide holder of the reporting API's bearer token. There is no
 * refresh endpoint, so "renewing" means signing in again; sign-in has a tight
 * rate budget, so every path here makes sure concurrent callers share one
 * sign-in instead of each starting their own, and a failed sign-in is not
 * tried again before its backoff ends: callers meanwhile get the same error
 * at once, with `retryAfterSeconds`. The Redis-shared provider is this class
 * with a Redis exchange (src/redis/upstream/redisTokenExchange.ts), which the
 * composition root hands to the call path's token source.
 */
export class TokenProvider {
  private readonly signIn: () => Promise<string>;
  private readonly errors: SignInErrors;
  private readonly now: () => number;
  private readonly safetyMarginMs: number;
  private readonly fallbackTtlMs: number;
  private readonly onSignIn: (reason: SignInReason) => void;
  private readonly backoff: SignInBackoffOptions;
  private readonly exchange: TokenExchange;
  private current: IssuedToken | undefined;
  /**
   * The token this process's own sign-in just issued because the vendor
   * refused the one before it, until it serves a call: a 401 on it is the
   * vendor refusing the account, not a token that expired.
   */
  private unproven: string | undefined;
  /** The last failure; kept after its backoff ends so that the next one doubles it, dropped on success. */
  private failure: SignInFailure | undefined;
  /** When a failure Redis holds is looked up again; undefined for one kept here (no Redis, or Redis away when it was met). */
  private failureRecheckAtMs: number | undefined;
  /** The token the vendor refused on its first use: never taken back from a shared store, until a new token comes. */
  private refusedToken: string | undefined;
  /** The token request in flight, shared by everyone who needs a token meanwhile. */
  private pending: Promise<string> | undefined;
  private readonly secrets: Pick<HeldSecrets, 'hold' | 'forget'>;
  /** The tokens redacted now: the current one and the one before it, which a call still in flight may have sent. */
  private readonly redacted: string[] = [];

  constructor(options: TokenProviderOptions) {
    this.signIn = options.signIn;
    this.errors = options.errors;
    this.now = options.now ?? Date.now;
    this.safetyMarginMs = options.safetyMarginMs;
    this.fallbackTtlMs = options.fallbackTtlMs;
    this.onSignIn = options.onSignIn ?? (() => {});
    this.backoff = options.signInBackoff;
    this.exchange = options.exchange ?? SIGN_IN_DIRECTLY;
    this.secrets = options.secrets ?? heldSecrets;
  }

  getToken(): Promise<string> {
    if (this.current !== undefined && this.now() < this.current.renewAtMs) {
      return Promise.resolve(this.current.token);
    }
    return this.obtainOnce({ reason: this.current === undefined ? 'initial' : 'expiry', notBeforeMs: Number.NEGATIVE_INFINITY });
  }

  /**
   * Called after the upstream rejected `rejectedToken`. Many requests that
   * used the same token fail together; only the first of them should sign in
   * again, the others get the token it produced.
   */
  renew(rejectedToken: string): Promise<string> {
    if (this.pending !== undefined) return this.pending;
    if (this.current !== undefined && this.current.token !== rejectedToken) return this.getToken();
    // Only a token signed in after the refused one can replace it: a shared store may still hold an older one.
    const notBeforeMs = this.current?.issuedAtMs ?? Number.NEGATIVE_INFINITY;
    this.current = undefined;
    return this.obtainOnce({ reason: 'rejected', rejectedToken, notBeforeMs });
  }

  /** Called when `token` served a call: from then on a 401 on it means it expired, nothing more. */
  served(token: string): void {
    if (this.unproven === token) this.unproven = undefined;
  }

  /**
   * Called on a 401 with `token`; true when that 401 is the vendor refusing
   * the account: the token is the one this process's own sign-in just issued
   * after a refusal, on its first use. Signing in again would then only
   * repeat, once per operation (8 operations once made 9 sign-ins and 16
   * dashboard calls): it is remembered like a refused sign-in instead
   * (readiness, metrics, `retryAfter`), the token is dropped, and the next
   * sign-in waits for the backoff. Any other token (one that served calls,
   * or one another replica signed in for and shared) simply expired: false,
   * and the caller renews it.
   */
  refused(token: string): boolean {
    if (this.unproven !== token || this.current?.token !== token) return false;
    this.current = undefined;
    this.unproven = undefined;
    this.refusedToken = token;
    const failure = nextSignInFailure(this.errors.tokenRefused, 'refused', this.failure, this.now(), this.backoff);
    this.failure = failure;
    this.failureRecheckAtMs = undefined;
    void this.shareRefusal(failure);
    return true;
  }

  /**
   * The other replicas back off too instead of each signing in for a token
   * the vendor will refuse; once shared, the failure lasts here as long as in
   * Redis, so a valid token another replica signs in for afterwards (after an
   * operator's DEL) ends this backoff too.
   */
  private async shareRefusal(failure: SignInFailure): Promise<void> {
    const shared = (await this.exchange.share?.(failure)) ?? false;
    if (shared && this.failure === failure) this.failureRecheckAtMs = this.now() + SHARED_FAILURE_RECHECK_MS;
  }

  /** For readiness and metrics: whether sign-in is backing off after a failure, why and until when. Never a secret. */
  signInState(): SignInState {
    this.lookAgainIfDue();
    return signInState(this.failure, this.now());
  }

  /**
   * A readiness probe or a metrics scrape looks at a shared failure again
   * when it is due, in the background (a read, never a sign-in): a replica
   * with no traffic also reports ok soon after the key is gone.
   */
  private lookAgainIfDue(): void {
    const failure = this.failure;
    const nowMs = this.now();
    const due =
      failure !== undefined && this.failureRecheckAtMs !== undefined && nowMs >= this.failureRecheckAtMs && nowMs < failure.untilMs;
    if (!due || this.pending !== undefined || this.exchange.sharedFailure === undefined) return;
    this.failureRecheckAtMs = nowMs + SHARED_FAILURE_RECHECK_MS;
    void this.exchange.sharedFailure().then(
      (shared) => {
        if (shared !== 'none' || this.failure !== failure) return;
        this.failure = undefined;
        this.failureRecheckAtMs = undefined;
      },
      () => {}, // a failed look changes nothing: the next one, or the next demand, asks again
    );
  }

  private obtainOnce(demand: TokenDemand): Promise<string> {
    if (this.pending !== undefined) return this.pending;
    const nowMs = this.now();
    const backingOff = this.failure !== undefined && nowMs < this.failure.untilMs ? this.failure : undefined;
    if (backingOff !== undefined && (this.failureRecheckAtMs === undefined || nowMs < this.failureRecheckAtMs)) {
      return Promise.reject(backoffError(backingOff, nowMs, this.errors));
    }
    let signedInHere = false;
    const signIn = () => {
      signedInHere = true;
      return this.signInNow(demand.reason);
    };
    const rejectedToken = demand.rejectedToken ?? this.refusedToken;
    const asked = {
      ...demand,
      ...(rejectedToken === undefined ? {} : { rejectedToken }),
      ...(backingOff === undefined ? {} : { backingOff }),
    };
    this.pending = this.exchange
      .obtain(asked, signIn)
      .then((outcome) => {
        const token = this.settle(outcome);
        this.unproven = demand.reason === 'rejected' && signedInHere ? token : undefined;
        return token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** The one place a sign-in happens: counted, timed for the token's lifetime, its failure classified. */
  private async signInNow(reason: SignInReason): Promise<SignInOutcome> {
    this.onSignIn(reason);
    const startedAtMs = this.now();
    try {
      const token = await this.signIn();
      return { token: { token, issuedAtMs: startedAtMs, renewAtMs: this.renewalTime(token, startedAtMs) } };
    } catch (error) {
      const remembered = this.errors.remembered(error);
      // Not the vendor's answer (or a local refusal with its own wait): rejects everyone waiting now, the next call tries again.
      if (remembered === undefined) throw error;
      const failure = nextSignInFailure(remembered.details, remembered.reason, this.failure, this.now(), this.backoff);
      return { failure, shared: false };
    }
  }

  private settle(outcome: SignInOutcome): string {
    if ('failure' in outcome) {
      // Read back, the failure this replica met and shared keeps the vendor's words it had (Redis holds kind and status only).
      const failure = isSameFailure(this.failure, outcome.failure) ? (this.failure ?? outcome.failure) : outcome.failure;
      this.failure = failure;
      // A failure Redis holds lasts as long as its key there, for this replica too: looked up again soon.
      this.failureRecheckAtMs = outcome.shared ? this.now() + SHARED_FAILURE_RECHECK_MS : undefined;
      throw backoffError(failure, this.now(), this.errors);
    }
    this.failure = undefined;
    this.failureRecheckAtMs = undefined;
    this.refusedToken = undefined;
    this.current = outcome.token;
    this.holdForRedaction(outcome.token.token);
    return outcome.token.token;
  }

  private holdForRedaction(token: string): void {
    if (this.redacted.includes(token)) return;
    this.secrets.hold(token);
    this.redacted.push(token);
    const retired = this.redacted.length > 2 ? this.redacted.shift() : undefined;
    if (retired !== undefined) this.secrets.forget(retired);
  }

  private renewalTime(token: string, issuedAtMs: number): number {
    return renewalTimeMs(token, issuedAtMs, { safetyMarginMs: this.safetyMarginMs, fallbackTtlMs: this.fallbackTtlMs });
  }
}

function isSameFailure(held: SignInFailure | undefined, read: SignInFailure): boolean {
  return held !== undefined && held.reason === read.reason && held.streak === read.streak && held.untilMs === read.untilMs;
}
