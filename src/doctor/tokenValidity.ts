import { decodeJwt } from 'jose';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export type TokenValidity = { kind: 'valid'; text: string } | { kind: 'expired'; text: string } | { kind: 'unknown'; text: string };

/**
 * How long the token is good for, from its `exp` (decoded, not verified: the
 * upstream checks it; contract §1 says a client may read `exp` but not rely
 * on it being there). Measured against this machine's clock, so a token that
 * is already expired here points at a skewed clock.
 */
export function tokenValidity(token: string, nowMs: number): TokenValidity {
  let exp: unknown;
  try {
    exp = decodeJwt(token).exp;
  } catch {
    return { kind: 'unknown', text: 'the token is not a readable JWT, so its lifetime is unknown (the subgraph renews it after a 401)' };
  }
  if (typeof exp !== 'number' || !Number.isFinite(exp)) {
    return { kind: 'unknown', text: 'the token has no exp claim, so its lifetime is unknown (the subgraph renews it after a 401)' };
  }
  const remainingMs = exp * 1000 - nowMs;
  const expiresAt = new Date(exp * 1000).toISOString();
  return remainingMs > 0
    ? { kind: 'valid', text: `token valid for ${formatDuration(remainingMs)} (until ${expiresAt})` }
    : { kind: 'expired', text: `the token expired at ${expiresAt} by this machine's clock, as soon as it was issued` };
}

/** Rounded to the unit a person would use: "30 min", "14 days". */
export function formatDuration(ms: number): string {
  if (ms >= 2 * DAY_MS) return `${Math.round(ms / DAY_MS)} days`;
  if (ms >= 2 * HOUR_MS) return `${Math.round(ms / HOUR_MS)} h`;
  if (ms >= MINUTE_MS) return `${Math.round(ms / MINUTE_MS)} min`;
  return `${Math.max(1, Math.round(ms / 1000))} s`;
}
