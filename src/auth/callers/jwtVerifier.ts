import { createLocalJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { JwtSettings } from '../../config/callerAuth';
import type { Claims } from './caller';
import { JwksUnavailable } from './jwksFetch';
import { createRemoteKeySet } from './remoteKeySet';

/** Asymmetric algorithms only: a shared-key (HS*) token could be minted by anyone who can read the key, and `none` by anyone. */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Clocks of the issuer and of this host differ a little: `exp`, `nbf` and `iat` are checked this many seconds loosely. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** How the JWKS endpoint is fetched when JwtSettings.jwksFetch says nothing else. */
const JWKS_FETCH_DEFAULTS = Object.freeze({
  /** The whole fetch, body included: an endpoint that does not answer in time is a 503, never a hang. */
  timeoutMs: 5_000,
  /** A key set is a few kilobytes: a body past 1 MB is not read further (503). */
  maxBytes: 1024 * 1024,
  /** An unknown `kid` refetches the JWKS (a rotated key), but not more often than this. */
  cooldownMs: 60_000,
  /** A key set is refetched at most this old even when every kid is known (keys removed at the issuer stop working). */
  maxAgeMs: 10 * 60_000,
  /** After a failed fetch, callers get the 503 at once for this long (its Retry-After), and the issuer is not asked again. */
  retryAfterFailureMs: 5_000,
});

/** Why a token was refused, in words for the 401 (never the expected value). */
export class TokenRefused extends Error {
  constructor(
    message: string,
    /** Set when the keys could not be fetched: the caller is not at fault (503 with this Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'TokenRefused';
  }

  /** true when the keys could not be fetched: the caller is not at fault (503). */
  get unavailable(): boolean {
    return this.retryAfterSeconds !== undefined;
  }
}

export interface JwtVerifier {
  /**
   * The token's claims once its signature, algorithm, times (`exp` required;
   * `nbf` and `iat` not in the future; the lifetime bound), issuer and
   * audience pass; else TokenRefused.
   */
  verify(token: string): Promise<Claims>;
}

export interface JwtVerifierOptions {
  /** Told of each failed JWKS fetch, with the URL (the warn line operators look for). */
  onJwksFailure?(jwksUrl: string, problem: string): void;
}

/** jose does the work: the signature against the JWKS (src/auth/callers/remoteKeySet.ts keeps it) and the claims. */
export function createJwtVerifier(settings: JwtSettings, options: JwtVerifierOptions = {}): JwtVerifier {
  const keys: JWTVerifyGetKey =
    'url' in settings.jwks ? remoteKeys(settings.jwks.url, settings, options) : createLocalJWKSet(settings.jwks.keySet);
  const verifyOptions = {
    ...(settings.issuer === undefined ? {} : { issuer: settings.issuer }),
    ...(settings.audience === undefined ? {} : { audience: settings.audience }),
    algorithms: ASYMMETRIC_ALGORITHMS,
    // A token without exp would never expire; with a lifetime bound, iat is needed to measure it.
    requiredClaims: settings.maxTokenLifetimeSeconds === undefined ? ['exp'] : ['exp', 'iat'],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  };
  return {
    async verify(token) {
      let claims: Claims;
      try {
        claims = (await jwtVerify(token, keys, verifyOptions)).payload as Claims;
      } catch (error) {
        throw refusalOf(error);
      }
      const problem = timesProblem(claims, settings.maxTokenLifetimeSeconds);
      if (problem !== undefined) throw new TokenRefused(problem);
      return claims;
    },
  };
}

function remoteKeys(url: string, settings: JwtSettings, options: JwtVerifierOptions): JWTVerifyGetKey {
  return createRemoteKeySet(url, {
    ...JWKS_FETCH_DEFAULTS,
    ...settings.jwksFetch,
    onFailure: (problem) => options.onJwksFailure?.(url, problem),
  });
}

/**
 * What jose leaves unchecked: an `iat` in the future (jose checks it only
 * with maxTokenAge, which bounds the age, not the lifetime), and the
 * lifetime `exp − iat` against JWT_MAX_TOKEN_LIFETIME_SECONDS.
 */
function timesProblem(claims: Claims, maxLifetimeSeconds: number | undefined): string | undefined {
  const { iat, exp } = claims;
  const now = Math.floor(Date.now() / 1000);
  if (typeof iat === 'number' && iat > now + CLOCK_TOLERANCE_SECONDS) return "the token's iat claim is in the future";
  if (maxLifetimeSeconds !== undefined && typeof iat === 'number' && typeof exp === 'number' && exp - iat > maxLifetimeSeconds) {
    return `the token's lifetime (exp − iat) is ${exp - iat} s, longer than JWT_MAX_TOKEN_LIFETIME_SECONDS (${maxLifetimeSeconds} s)`;
  }
  return undefined;
}

function refusalOf(error: unknown): TokenRefused {
  if (error instanceof JwksUnavailable) return new TokenRefused(error.message, error.retryAfterSeconds);
  if (error instanceof errors.JWTExpired) return new TokenRefused('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return new TokenRefused(claimProblem(error.claim, error.reason));
  if (error instanceof errors.JOSEAlgNotAllowed) return new TokenRefused('the token is not signed with an allowed asymmetric algorithm');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return new TokenRefused('the token is not signed by a key of the configured JWKS');
  }
  // Anything else jose raises is about the token (its form, its header, its key's type); the keys' fetch raises JwksUnavailable.
  if (error instanceof errors.JOSEError) return new TokenRefused('the token is not a valid signed JWT');
  // Not jose's word on the token (a key of the set that cannot be imported, say): not the caller's fault either.
  return new TokenRefused('the signing keys (JWKS) could not be used', 1);
}

function claimProblem(claim: string, reason: string): string {
  if (claim === 'iss') return 'the token was issued by another issuer';
  if (claim === 'aud') return 'the token is meant for another audience';
  if (claim === 'nbf' && reason === 'check_failed') return 'the token is not valid yet (nbf)';
  return `the token's ${claim} claim is ${reason === 'missing' ? 'missing' : 'invalid'}`;
}
