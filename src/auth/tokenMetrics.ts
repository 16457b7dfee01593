import type { Metrics } from '../observability/metrics/metrics';
import { backoffSeconds } from './signInBackoff';
import type { SignInReason } from './tokenExchange';
import type { TokenProvider } from './tokenProvider';

/** Told of each renewal: the upstream observer (kernel/observer.ts) in the subgraph. */
export interface RenewalObserver {
  tokenRenewed(reason: Exclude<SignInReason, 'initial'>): void;
}

/**
 * The `onSignIn` both providers take: every sign-in but the first counts as a
 * renewal (`subgraph_upstream_token_renewals_total{reason}`). With Redis only
 * the replica that signs in is told, so the cluster's sum is its renewals.
 */
export function renewalCounter(observer: RenewalObserver): (reason: SignInReason) => void {
  return (reason) => {
    if (reason !== 'initial') observer.tokenRenewed(reason);
  };
}

/** `subgraph_upstream_signin_backoff_seconds` follows this provider's sign-in backoff. */
export function watchSignInBackoff(metrics: Pick<Metrics, 'watchSignInBackoff'>, tokens: Pick<TokenProvider, 'signInState'>): void {
  metrics.watchSignInBackoff(() => backoffSeconds(tokens.signInState()));
}
