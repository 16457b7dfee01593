const REDACTED = '[redacted]';

/** `Bearer <anything>` as it would appear if an upstream echoed an Authorization header. */
const BEARER = /\bBearer\s+[^\s"',;]+/gi;
/** Three base64url segments starting with `eyJ` (`{"`): the shape of every JWT. */
const JWT = /\beyJ[\w-]*\.[\w-]+\.[\w-]*/g;

export interface RedactOptions {
  /** Exact strings to remove as well, e.g. the configured password. */
  secrets?: readonly string[];
  /** Cut longer text (after redaction): a proxy's HTML error page should not become an error message. */
  maxLength?: number;
}

/** Removes the given secrets, bearer credentials and anything shaped like a JWT; optionally bounds the length. */
export function redactCredentials(text: string, { secrets = [], maxLength }: RedactOptions = {}): string {
  let clean = text;
  for (const secret of secrets) {
    if (secret.length > 0) clean = clean.split(secret).join(REDACTED);
  }
  clean = clean.replace(BEARER, `Bearer ${REDACTED}`).replace(JWT, REDACTED);
  return maxLength !== undefined && clean.length > maxLength ? `${clean.slice(0, maxLength)}…` : clean;
}
