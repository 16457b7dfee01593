import { createSignIn, type SignInOptions } from '../datasources/signInRequest';
import type { Logger } from '../../observability/logger';
import type { Observer } from '../../kernel/observer';

/** The reporting API's sign-in: a new token. Its requests pass the governor's `signin` rate, then the transport. */
export type SignInEndpoint = () => Promise<string>;

export interface SignInEndpointOptions extends SignInOptions {
  logger: Pick<Logger, 'info' | 'warn'>;
  observer: Pick<Observer, 'signedIn'>;
}

/** Sign-ins are rare (about every two weeks) and rate-limited, so each one is worth a log line; the token never is. */
export function createSignInEndpoint(options: SignInEndpointOptions): SignInEndpoint {
  const signIn = createSignIn(options);
  return async () => {
    try {
      const token = await signIn();
      options.observer.signedIn('ok');
      options.logger.info({ upstream: 'reporting' }, 'signed in to the reporting API');
      return token;
    } catch (error) {
      options.observer.signedIn('failed');
      options.logger.warn(
        { upstream: 'reporting', error: error instanceof Error ? error.message : String(error) },
        'reporting API sign-in failed',
      );
      throw error;
    }
  };
}
