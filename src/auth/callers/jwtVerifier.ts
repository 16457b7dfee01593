import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, UnsecuredJWT, type JWTVerifyGetKey, type JWTPayload } from 'jose';
import type { JwtSettings } from '../../config/callerAuth';
import type { Claims } from './caller';

/** Asymmetric algorithms only: a shared-key (HS*) token could be minted by anyone who can read the key, and `none` by anyone. */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** A JWKS endpoint that does not answer within this is a verification failure (503), never a hang. */
const JWKS_TIMEOUT_MS = 5_000;
/** An unknown `kid` refetches the JWKS (a rotated key), but not more often than this. */
const JWKS_REFETCH_COOLDOWN_MS = 60_000;
/** A key set is refetched at most this old even when every kid is known (keys removed at the issuer stop working). */
const JWKS_MAX_AGE_MS = 10 * 60_000;

/** Why a token was refused, in words for the 401 (never the expected value). */
export class TokenRefused extends Error {
  constructor(
    message: string,
    /** true when the keys could not be fetched: the caller is not at fault (503). */
    readonly unavailable = false,
  ) {
    super(message);
    this.name = 'TokenRefused';
  }
}

export interface JwtVerifier {
  /** The token's claims once its signature, algorithm, lifetime, issuer and audience pass; else TokenRefused. */
  verify(token: string): Promise<Claims>;
  /** Claims a trusted gateway verified and forwarded (behind a valid HMAC): lifetime, issuer and audience are checked again here. */
  checkForwarded(claims: Claims): Claims;
}

/** jose does the work: the signature against the JWKS (cached; refetched on an unknown kid at most once a minute) and the claims. */
export function createJwtVerifier(settings: JwtSettings): JwtVerifier {
  const keys: JWTVerifyGetKey =
    'url' in settings.jwks
      ? createRemoteJWKSet(new URL(settings.jwks.url), {
          timeoutDuration: JWKS_TIMEOUT_MS,
          cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
          cacheMaxAge: JWKS_MAX_AGE_MS,
        })
      : createLocalJWKSet(settings.jwks.keySet);
  const claimOptions = {
    ...(settings.issuer === undefined ? {} : { issuer: settings.issuer }),
    ...(settings.audience === undefined ? {} : { audience: settings.audience }),
  };
  return {
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, keys, { ...claimOptions, algorithms: ASYMMETRIC_ALGORITHMS });
        return payload as Claims;
      } catch (error) {
        throw refusalOf(error);
      }
    },
    checkForwarded(claims) {
      try {
        // jose's own claim checks (exp, nbf, iss, aud), run on the forwarded set as an unsigned token: nothing is verified twice differently.
        return UnsecuredJWT.decode(new UnsecuredJWT(claims as JWTPayload).encode(), claimOptions).payload as Claims;
      } catch (error) {
        throw refusalOf(error);
      }
    },
  };
}

function refusalOf(error: unknown): TokenRefused {
  if (error instanceof errors.JWTExpired) return new TokenRefused('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return new TokenRefused(claimProblem(error.claim, error.reason));
  if (error instanceof errors.JOSEAlgNotAllowed) return new TokenRefused('the token is not signed with an allowed asymmetric algorithm');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return new TokenRefused('the token is not signed by a key of the configured JWKS');
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return new TokenRefused('the token is not a valid signed JWT');
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return new TokenRefused('the signing keys (JWKS) could not be fetched', true);
  }
  if (error instanceof errors.JOSEError) return new TokenRefused('the token is not a valid signed JWT');
  // A network failure fetching the JWKS: not the caller's fault.
  return new TokenRefused('the signing keys (JWKS) could not be fetched', true);
}

function claimProblem(claim: string, reason: string): string {
  if (claim === 'iss') return 'the token was issued by another issuer';
  if (claim === 'aud') return 'the token is meant for another audience';
  if (claim === 'nbf') return 'the token is not valid yet';
  return `the token's ${claim} claim is ${reason === 'missing' ? 'missing' : 'invalid'}`;
}
