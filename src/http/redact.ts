const REDACTED = '[redacted]';
const MAX_UPSTREAM_TEXT_LENGTH = 500;

/** `Bearer <anything>` as it would appear if an upstream echoed an Authorization header. */
const BEARER = /\bBearer\s+[^\s"',;]+/gi;
/** Three base64url segments starting with `eyJ` (`{"`): the shape of every JWT. */
const JWT = /\beyJ[\w-]*\.[\w-]+\.[\w-]*/g;

/** Removes the given secrets, bearer credentials and anything shaped like a JWT. */
export function removeCredentials(text: string, secrets: readonly string[] = []): string {
  let clean = text;
  for (const secret of secrets) {
    if (secret.length > 0) clean = clean.split(secret).join(REDACTED);
  }
  return clean.replace(BEARER, `Bearer ${REDACTED}`).replace(JWT, REDACTED);
}

/**
 * Makes an upstream-provided string safe to log and return: credentials
 * removed and the length bounded (a proxy's HTML error page should not become
 * an error message).
 */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  const clean = removeCredentials(text, secrets);
  return clean.length > MAX_UPSTREAM_TEXT_LENGTH ? `${clean.slice(0, MAX_UPSTREAM_TEXT_LENGTH)}…` : clean;
}
