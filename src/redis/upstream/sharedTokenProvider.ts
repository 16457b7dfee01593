import { TokenProvider, type TokenProviderOptions } from '../../auth/tokenProvider';
import { REPORTING_SIGN_IN_ERRORS } from '../../upstream/datasources/signInErrors';
import type { SharedRedis } from '../connection/sharedRedis';
import { RedisTokenExchange, longestBackoffMs } from './redisTokenExchange';

export { TOKEN_KEY } from './redisTokenExchange';

export interface SharedTokenProviderOptions extends Omit<TokenProviderOptions, 'exchange' | 'errors'> {
  redis: SharedRedis;
  /** How long the renewal lock is held at most: longer than a sign-in can take (its timeout). */
  lockMs: number;
  /** How often a replica waiting for another one's sign-in looks for the new token (REDIS_STATE_DEFAULTS.tokenExchange). */
  pollMs: number;
}

/**
 * The reporting token shared by every replica through Redis: the in-process
 * TokenProvider (auth/) (single-flight, renewal time, failure backoff, onSignIn) whose
 * new tokens come through Redis (RedisTokenExchange) instead of straight from
 * a sign-in. A replica keeps the token it last saw and asks Redis only when
 * that one is due or was refused. The call path builds the same pair in two
 * steps (redisUpstreamStores.ts gives the exchange, upstream's createTokenSource
 * the provider); this builds it in one, for the suites that test the shared token.
 */
export class SharedTokenProvider extends TokenProvider {
  constructor(options: SharedTokenProviderOptions) {
    const now = options.now ?? Date.now;
    const maxBackoffMs = longestBackoffMs(options.signInBackoff);
    const exchange = new RedisTokenExchange({ redis: options.redis, lockMs: options.lockMs, pollMs: options.pollMs, maxBackoffMs, now });
    super({ ...options, now, exchange, errors: REPORTING_SIGN_IN_ERRORS });
  }
}
