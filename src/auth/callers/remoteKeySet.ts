import { createLocalJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import { fetchKeySet, JwksUnavailable, type JwksFetchLimits } from './jwksFetch';

export interface RemoteKeySetOptions extends JwksFetchLimits {
  /** An unknown `kid` refetches the set (a rotated key), but not more often than this. */
  cooldownMs: number;
  /** The set is refetched at most this old even when every kid is known (keys removed at the issuer stop working). */
  maxAgeMs: number;
  /** After a failed fetch, no other is tried for this long: callers get the same 503 at once, the issuer is not hammered. */
  retryAfterFailureMs: number;
  /** Told of each failed fetch (the log line naming the JWKS URL). */
  onFailure(problem: string): void;
  now?: () => number;
}

/**
 * The keys of a JWKS endpoint for jose's jwtVerify, as jose's
 * createRemoteJWKSet keeps them (cached, refetched when old or on an
 * unknown kid after a cooldown, one fetch in flight at a time), but fetched
 * by fetchKeySet: a capped body and a timeout over the whole fetch. Every
 * failure is a JwksUnavailable (503), never a refusal of the token.
 */
export function createRemoteKeySet(url: string, options: RemoteKeySetOptions): JWTVerifyGetKey {
  const now = options.now ?? Date.now;
  let keys: JWTVerifyGetKey | undefined;
  let fetchedAt = 0;
  let pending: Promise<void> | undefined;
  let failure: { problem: string; until: number } | undefined;

  const reload = (): Promise<void> => {
    if (failure !== undefined && now() < failure.until) {
      return Promise.reject(new JwksUnavailable(failure.problem, Math.max(1, Math.ceil((failure.until - now()) / 1000))));
    }
    pending ??= fetchKeySet(url, options)
      .then(
        (keySet) => {
          keys = createLocalJWKSet(keySet);
          fetchedAt = now();
          failure = undefined;
        },
        (error: unknown) => {
          const problem = error instanceof JwksUnavailable ? error.problem : String(error);
          failure = { problem, until: now() + options.retryAfterFailureMs };
          options.onFailure(problem);
          throw new JwksUnavailable(problem, Math.max(1, Math.ceil(options.retryAfterFailureMs / 1000)));
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return async (header, token) => {
    if (keys === undefined || now() - fetchedAt >= options.maxAgeMs) await reload();
    try {
      return await keys!(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || now() - fetchedAt < options.cooldownMs) throw error;
      await reload();
      return keys!(header, token);
    }
  };
}
