import type { SignInBackoffOptions } from '../../auth/signInBackoff';
import type { TokenExchange } from '../../auth/tokenExchange';
import { renewalCounter, watchSignInBackoff } from '../../auth/tokenMetrics';
import { TokenProvider } from '../../auth/tokenProvider';
import { UPSTREAM_PATH_DEFAULTS } from '../../config/upstreamPath';
import { REPORTING_SIGN_IN_ERRORS } from '../datasources/signInErrors';
import type { Metrics } from '../../observability/metrics/metrics';
import type { Observer } from '../../kernel/observer';
import type { SignInEndpoint } from './signIn';

/** What the reporting datasource needs from a token holder: in process, or shared through Redis. */
export type TokenSource = Pick<TokenProvider, 'getToken' | 'renew' | 'served' | 'refused' | 'signInState'>;

export interface TokenSourceOptions {
  signIn: SignInEndpoint;
  /** Where a new token comes from: a sign-in here (SIGN_IN_DIRECTLY), or the replicas' exchange through Redis. */
  exchange: TokenExchange;
  /** How long a failed sign-in is remembered (SIGNIN_FAILURE_BACKOFF_SECONDS and UPSTREAM_PATH_DEFAULTS.signInBackoff). */
  signInBackoff: SignInBackoffOptions;
  now?: () => number;
  observer: Pick<Observer, 'tokenRenewed'>;
  /** The sign-in backoff gauge follows the token holder when metrics are on. */
  metrics?: Pick<Metrics, 'watchSignInBackoff'>;
}

/**
 * The token holder every reporting call asks: this process's, or the one
 * shared by every replica (the same provider with a Redis exchange, given by
 * the composition root). Either way only the process that signs in counts
 * the renewal.
 */
export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const tokens = new TokenProvider({
    signIn: options.signIn,
    ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
    onSignIn: renewalCounter(options.observer),
    signInBackoff: options.signInBackoff,
    ...(options.now === undefined ? {} : { now: options.now }),
    errors: REPORTING_SIGN_IN_ERRORS,
    exchange: options.exchange,
  });
  if (options.metrics !== undefined) watchSignInBackoff(options.metrics, tokens);
  return tokens;
}
