/**
 * Who is asking, as the proofs of src/web/callerGate.ts established it: what
 * the per-operation context carries to the scope rule (src/graphql/access/),
 * the caller-scoped read path (src/reporting/reads/) and the queue's fair share.
 */
export interface Caller {
  /**
   * Whom the budget's share is counted for, from a proof only: the verified
   * JWT's `azp` or `client_id`, else its `sub`; the `apollographql-client-name`
   * header only when the operator says the router sets it from something it
   * verified (CALLER_NAME_HEADER_TRUSTED, behind a router-secret or hmac
   * proof); else `unverified`, the one id (and so the one fair share) of
   * every caller without a verified identity: renaming gains nothing.
   */
  id: string;
  /** The `apollographql-client-name` header as sent (cut to 128 characters): a label for logs, never an identity unless trusted. */
  clientName?: string;
  /** The scopes the caller holds; undefined when no JWT proof is required (the router enforces scopes then). */
  scopes?: ReadonlySet<string>;
  /** The site domains (lower case) the caller may read; undefined: every site (JWT_SITES_CLAIM unset). */
  sites?: ReadonlySet<string>;
}

/** The id every caller without a verified identity shares: one fair share between them all. */
const UNVERIFIED_CALLER_ID = 'unverified';

/** The caller of a subgraph that asks for no proof (CALLER_AUTH=none), and of in-process executeOperation calls. */
export const OPEN_CALLER: Caller = Object.freeze({ id: UNVERIFIED_CALLER_ID });

/** Longer ids are cut: an id becomes a queue key and a (bounded) metrics label. */
const MAX_ID_LENGTH = 128;

/** The verified claims of a JWT (a bearer token, or the token Hive Gateway forwards). */
export type Claims = Readonly<Record<string, unknown>>;

/**
 * The caller's identity, in the order platform teams expect: the OAuth client
 * (`azp`, `client_id`) a verified token was issued to, then its subject; a
 * client name only when the gate trusts the router to have set it.
 */
export function callerIdOf(claims: Claims | undefined, trustedClientName: string | undefined): string {
  const fromClaims = [claims?.azp, claims?.client_id, claims?.sub].find(isNonEmptyString);
  const id = fromClaims ?? (isNonEmptyString(trustedClientName) ? trustedClientName.trim() : undefined);
  return id === undefined ? UNVERIFIED_CALLER_ID : id.slice(0, MAX_ID_LENGTH);
}

/** The client name header's value as a label: trimmed, cut to the id's length; undefined when empty. */
export function clientNameOf(header: string | undefined): string | undefined {
  return isNonEmptyString(header) ? header.trim().slice(0, MAX_ID_LENGTH) : undefined;
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
