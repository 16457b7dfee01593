import type { JSONWebKeySet } from 'jose';
import { Secret } from '../redaction/secret';
import type { EnvReader } from './env';
import type { UpstreamConfig } from './upstream';

/** The proofs a request to /graphql may be asked to carry (CALLER_AUTH); `none` asks for nothing. */
export const CALLER_PROOFS = ['router-secret', 'hmac', 'jwt'] as const;
export type CallerProof = (typeof CALLER_PROOFS)[number];

export interface JwtSettings {
  /** Where the signing keys come from: a JWKS endpoint (fetched, cached, refreshed on an unknown kid) or a file read at start-up. */
  jwks: { url: string } | { keySet: JSONWebKeySet };
  /** JWT_ISSUER: the `iss` every token must carry; unset: not checked. */
  issuer?: string;
  /** JWT_AUDIENCE: the `aud` every token must carry; unset: not checked. */
  audience?: string;
  /** JWT_SITES_CLAIM: the claim listing the domains a caller may read; unset: every site. */
  sitesClaim?: string;
  /** JWT_MAX_TOKEN_LIFETIME_SECONDS: the longest `exp − iat` a token may have (then `iat` is required too); unset: not bounded. */
  maxTokenLifetimeSeconds?: number;
  /**
   * How the JWKS endpoint is fetched, when not as JWKS_FETCH_DEFAULTS (src/auth/callers/jwtVerifier.ts) say: no variable
   * sets these; tests shorten them.
   */
  jwksFetch?: { timeoutMs?: number; retryAfterFailureMs?: number };
}

export interface CallerAuthConfig {
  /** Every proof each /graphql request must carry; empty: any caller (`none`). */
  proofs: CallerProof[];
  /** `previous`: the secret being rotated out, still accepted until it is unset (docs/security.md, "Rotating secrets"). */
  routerSecret?: { header: string; secret: Secret; previous?: Secret };
  hmac?: { secret: Secret; previous?: Secret };
  jwt?: JwtSettings;
  /**
   * CALLER_NAME_HEADER_TRUSTED: the router sets `apollographql-client-name` from something it verified (it overwrites
   * the client's), so the name may be a caller's identity for the fair share. Unset or false: the name is only a label.
   */
  clientNameTrusted?: boolean;
}

const CALLER_AUTH_DEFAULTS = Object.freeze({ routerSecretHeader: 'x-router-secret' });

/** RFC 7230 token characters: what a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/**
 * CALLER_AUTH and the settings of each proof it names. In production against
 * the real hosts it has no default: the subgraph signs in as an API user who
 * reads the whole account, so an open port would be an open account.
 */
export function readCallerAuth(reader: EnvReader, production: boolean, upstream: UpstreamConfig): CallerAuthConfig {
  const proofs = readProofs(reader, production, upstream);
  const config: CallerAuthConfig = { proofs };
  if (proofs.includes('router-secret')) config.routerSecret = readRouterSecret(reader);
  if (proofs.includes('hmac')) {
    config.hmac = {
      secret: requiredSecret(reader, 'ROUTER_HMAC_SECRET', 'hmac'),
      ...previousSecret(reader, 'ROUTER_HMAC_SECRET_PREVIOUS'),
    };
  }
  if (proofs.includes('jwt')) config.jwt = readJwt(reader);
  if (reader.boolean('CALLER_NAME_HEADER_TRUSTED') === true) {
    // Without a proof that the router sent the request, anyone can set the header: trusting it would let them pick their share.
    if (config.routerSecret === undefined && config.hmac === undefined) {
      reader.problem(
        'CALLER_NAME_HEADER_TRUSTED=true needs CALLER_AUTH to include router-secret or hmac: only a request the router vouched for carries a name it set',
      );
    }
    config.clientNameTrusted = true;
  }
  return config;
}

function readProofs(reader: EnvReader, production: boolean, upstream: UpstreamConfig): CallerProof[] {
  const raw = reader.raw('CALLER_AUTH');
  if (raw === undefined) {
    if (production && upstream.mode === 'remote') {
      reader.problem(
        'CALLER_AUTH is required in production against the real hosts: set it to the proofs every request must carry ' +
          '(router-secret, hmac, jwt, comma-separated), or to none to accept any caller on purpose (docs/security.md)',
      );
    }
    return [];
  }
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => name !== 'none' && !(CALLER_PROOFS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    reader.problem(`CALLER_AUTH must be none or a comma-separated list of ${CALLER_PROOFS.join(', ')} (got ${JSON.stringify(raw)})`);
    return [];
  }
  if (names.includes('none')) {
    if (names.length > 1) reader.problem(`CALLER_AUTH: none cannot be combined with other proofs (got ${JSON.stringify(raw)})`);
    return [];
  }
  return CALLER_PROOFS.filter((proof) => names.includes(proof));
}

function readRouterSecret(reader: EnvReader): NonNullable<CallerAuthConfig['routerSecret']> {
  const header = reader.matching('ROUTER_SECRET_HEADER', HEADER_NAME, 'an HTTP header name') ?? CALLER_AUTH_DEFAULTS.routerSecretHeader;
  return {
    header: header.toLowerCase(),
    secret: requiredSecret(reader, 'ROUTER_SECRET', 'router-secret'),
    ...previousSecret(reader, 'ROUTER_SECRET_PREVIOUS'),
  };
}

/** The secret being rotated out (`*_PREVIOUS`, or its `_FILE`), when set. */
function previousSecret(reader: EnvReader, name: string): { previous?: Secret } {
  const value = reader.valueOrFile(name);
  return value === undefined ? {} : { previous: new Secret(value) };
}

function requiredSecret(reader: EnvReader, name: string, proof: CallerProof): Secret {
  const value = reader.valueOrFile(name);
  if (value === undefined && !reader.isSetOrFile(name))
    reader.problem(`${name} (or ${name}_FILE) is required when CALLER_AUTH includes ${proof}`);
  // Placeholder when unusable: the problem is recorded and this never leaves loadConfig.
  return new Secret(value ?? 'unset');
}

function readJwt(reader: EnvReader): JwtSettings {
  const url = reader.httpUrl('JWT_JWKS_URL');
  const file = reader.raw('JWT_JWKS_FILE');
  let jwks: JwtSettings['jwks'] = { keySet: { keys: [] } };
  if (url !== undefined && file !== undefined) reader.problem('JWT_JWKS_URL and JWT_JWKS_FILE are both set: set only one of them');
  else if (url !== undefined) jwks = { url };
  else if (file !== undefined) jwks = { keySet: readKeySet(reader, 'JWT_JWKS_FILE') ?? { keys: [] } };
  else if (!reader.isSet('JWT_JWKS_URL')) reader.problem('JWT_JWKS_URL or JWT_JWKS_FILE is required when CALLER_AUTH includes jwt');
  const settings: JwtSettings = { jwks };
  const issuer = reader.raw('JWT_ISSUER');
  const audience = reader.raw('JWT_AUDIENCE');
  const sitesClaim = reader.matching('JWT_SITES_CLAIM', /^[A-Za-z0-9_:./-]{1,100}$/, 'a claim name');
  if (issuer !== undefined) settings.issuer = issuer;
  if (audience !== undefined) settings.audience = audience;
  if (sitesClaim !== undefined) settings.sitesClaim = sitesClaim;
  const maxLifetime = reader.integer('JWT_MAX_TOKEN_LIFETIME_SECONDS', { min: 60, max: 366 * 24 * 3600 });
  if (maxLifetime !== undefined) settings.maxTokenLifetimeSeconds = maxLifetime;
  return settings;
}

/** The JWKS file as JSON with a `keys` array; read through the secret-file reader (a mounted file). */
function readKeySet(reader: EnvReader, name: string): JSONWebKeySet | undefined {
  const path = reader.raw(name);
  // valueOrFile reads `${base}_FILE`: JWT_JWKS_FILE is the file form of a JWT_JWKS that is never set inline.
  const content = reader.valueOrFile('JWT_JWKS');
  if (content === undefined) return undefined;
  try {
    const parsed = JSON.parse(content) as unknown;
    const keys = (parsed as { keys?: unknown } | null)?.keys;
    if (Array.isArray(keys) && keys.length > 0 && keys.every((key) => typeof (key as { kty?: unknown } | null)?.kty === 'string')) {
      return { keys: keys as JSONWebKeySet['keys'] };
    }
  } catch {
    // Reported below.
  }
  reader.problem(`${name} must name a JSON Web Key Set file (JSON with a non-empty "keys" array of keys with a "kty"): ${path ?? ''}`);
  return undefined;
}
