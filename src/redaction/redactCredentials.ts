import { heldSecrets, patternFor } from './secret';

const REDACTED = '[redacted]';

/** `Bearer <anything>` as it would appear if an upstream echoed an Authorization header. */
const BEARER = /\bBearer\s+[^\s"',;]+/gi;
/** Three base64url segments starting with `eyJ` (`{"`): the shape of every JWT. */
const JWT = /\beyJ[\w-]*\.[\w-]+\.[\w-]*/g;

export interface RedactOptions {
  /** Strings to remove as well (in every form), e.g. the configured password. */
  secrets?: readonly string[];
  /** Cut longer text (after redaction): a proxy's HTML error page should not become an error message. */
  maxLength?: number;
}

/**
 * Removes every secret the process holds (src/redaction/secret.ts `heldSecrets`) and
 * the given ones, in each of their forms (raw, JSON-escaped, URL-encoded,
 * base64), bearer credentials and anything shaped like a JWT; optionally
 * bounds the length.
 */
export function redactCredentials(text: string, { secrets = [], maxLength }: RedactOptions = {}): string {
  let clean = heldSecrets.redact(text);
  const extra = secrets.filter((secret) => secret.length > 0);
  if (extra.length > 0) clean = clean.replace(patternFor(extra), REDACTED);
  clean = clean.replace(BEARER, `Bearer ${REDACTED}`).replace(JWT, REDACTED);
  return maxLength !== undefined && clean.length > maxLength ? `${clean.slice(0, maxLength)}…` : clean;
}
