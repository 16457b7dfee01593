/**
 * Who is asking, as the proofs of src/web/callerGate.ts established it: what
 * the per-operation context carries to the scope rule (src/graphql/access/),
 * the sites filter (src/reporting/sites/) and the queue's fair share.
 */
export interface Caller {
  /**
   * Whom the budget's share is counted for: the JWT's `azp` or `client_id`,
   * else its `sub`, else the `apollographql-client-name` header (trusted only
   * behind a router-secret or hmac proof), else `anonymous`.
   */
  id: string;
  /** The scopes the caller holds; undefined when no JWT proof is required (the router enforces scopes then). */
  scopes?: ReadonlySet<string>;
  /** The site domains (lower case) the caller may read; undefined: every site (JWT_SITES_CLAIM unset). */
  sites?: ReadonlySet<string>;
}

const ANONYMOUS_ID = 'anonymous';

/** The caller of a subgraph that asks for no proof (CALLER_AUTH=none), and of in-process executeOperation calls. */
export const OPEN_CALLER: Caller = Object.freeze({ id: ANONYMOUS_ID });

/** Longer ids are cut: an id becomes a queue key and a (bounded) metrics label. */
const MAX_ID_LENGTH = 128;

/** The verified claims of a JWT (or those Hive Gateway forwarded behind a valid HMAC signature). */
export type Claims = Readonly<Record<string, unknown>>;

/**
 * The caller's identity, in the order platform teams expect: the OAuth client
 * (`azp`, `client_id`) a token was issued to, then its subject; a client name
 * header only counts when a router vouched for the request.
 */
export function callerIdOf(claims: Claims | undefined, trustedClientName: string | undefined): string {
  const fromClaims = [claims?.azp, claims?.client_id, claims?.sub].find(isNonEmptyString);
  const id = fromClaims ?? (isNonEmptyString(trustedClientName) ? trustedClientName.trim() : undefined);
  return id === undefined ? ANONYMOUS_ID : id.slice(0, MAX_ID_LENGTH);
}

/** `scope` (space-separated, RFC 8693) and `scp` (an array, as Azure AD and Okta send it), as both routers read them. */
export function scopesOf(claims: Claims): ReadonlySet<string> {
  const scopes = new Set<string>();
  if (typeof claims.scope === 'string') for (const scope of claims.scope.split(' ')) if (scope !== '') scopes.add(scope);
  const scp = claims.scp;
  if (Array.isArray(scp)) for (const scope of scp) if (isNonEmptyString(scope)) scopes.add(scope);
  if (typeof scp === 'string') for (const scope of scp.split(' ')) if (scope !== '') scopes.add(scope);
  return scopes;
}

/**
 * The domains of the sites claim: a list of domains (or one space- or
 * comma-separated string). A token without the claim reads no site: a
 * missing claim must never widen access.
 */
export function sitesOf(claims: Claims, claim: string): ReadonlySet<string> {
  const value = claims[claim];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/) : [];
  return new Set(items.filter(isNonEmptyString).map((domain) => domain.trim().toLowerCase()));
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
