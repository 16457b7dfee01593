import { decodeJwt } from 'jose';

/** UPSTREAM_PATH_DEFAULTS.tokenRenewal (src/config/upstreamPath.ts). */
export interface RenewalOptions {
  /** How long before expiry a token is replaced. */
  safetyMarginMs: number;
  /** Lifetime assumed when the token carries no usable `exp`. */
  fallbackTtlMs: number;
}

/**
 * When a token signed in at `issuedAtMs` should be replaced. The lifetime
 * comes from the JWT when it can be read (`exp - iat` when both are present,
 * which is immune to clock skew between us and the upstream), else from the
 * documented 14 days. The vendor's docs say "up to 30 minutes", the spec "up
 * to 14 days", so the margin must fit both: it is the safety margin (1 hour)
 * but at most a tenth of the lifetime. A 30-minute token is replaced after 27
 * minutes (3 minutes to spare: far more than a sign-in takes, and one sign-in
 * per 27 minutes is well within the sign-in budget); a 14-day token an hour
 * before `exp` (renewing at 90% would cost a sign-in a day and a half early
 * for nothing). Whatever the lifetime, a 401 still renews once (ReportingAPI).
 */
export function renewalTimeMs(token: string, issuedAtMs: number, options: RenewalOptions): number {
  const lifetimeMs = readJwtLifetimeMs(token, issuedAtMs) ?? options.fallbackTtlMs;
  const marginMs = Math.min(options.safetyMarginMs, lifetimeMs / 10);
  return issuedAtMs + lifetimeMs - marginMs;
}

/** Decodes without verifying: the token is the upstream's to check; we only read when it ends. */
function readJwtLifetimeMs(token: string, issuedAtMs: number): number | undefined {
  let claims: { exp?: unknown; iat?: unknown };
  try {
    claims = decodeJwt(token);
  } catch {
    return undefined;
  }
  if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) return undefined;
  const lifetimeMs =
    typeof claims.iat === 'number' && Number.isFinite(claims.iat) ? (claims.exp - claims.iat) * 1000 : claims.exp * 1000 - issuedAtMs;
  return lifetimeMs > 0 ? lifetimeMs : undefined;
}
