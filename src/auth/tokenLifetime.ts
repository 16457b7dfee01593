import { decodeJwt } from 'jose';

export const HOUR_MS = 3_600_000;
export const FOURTEEN_DAYS_MS = 14 * 24 * HOUR_MS;

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
 * documented 14 days. The margin is capped at a tenth of the lifetime so that
 * short-lived tokens (as configured in tests) are still reused instead of
 * triggering a sign-in on every call.
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
