import type { IncomingMessage } from 'node:http';
import type { CallerAuthConfig } from '../config';
import { callerIdOf, clientNameOf, OPEN_CALLER, scopesOf, sitesOf, type Caller, type Claims } from '../auth/callers/caller';
import { HMAC_EXTENSION, isValidSignature, type SignedParams } from '../auth/callers/hmacSignature';
import { createJwtVerifier, TokenRefused, type JwtVerifier } from '../auth/callers/jwtVerifier';
import { isRouterSecret } from '../auth/callers/routerSecret';
import type { Logger } from '../observability/logger';
import { ErrorCode } from '../kernel/failures/errorCodes';

/** Why a request was turned away: the 401 (or 503 when the JWKS is unreachable) names each problem, never a secret. */
export interface Refusal {
  status: 401 | 503;
  problems: string[];
  /** With a 503: the seconds after which the keys may be fetched again (the Retry-After header). */
  retryAfterSeconds?: number;
}

export interface CallerGateOptions {
  /** Where a failed JWKS fetch is logged (warn, naming the JWKS URL). */
  logger?: Pick<Logger, 'warn'>;
}

/** A refusal as a client reads it (the HTTP gate's body, a refused WebSocket upgrade's): its code and the problems named. */
export function describeRefusal(refusal: Refusal): { code: ErrorCode; message: string } {
  const unauthenticated = refusal.status === 401;
  return {
    code: unauthenticated ? ErrorCode.UNAUTHENTICATED : ErrorCode.SERVICE_UNAVAILABLE,
    message: `${unauthenticated ? 'caller not authenticated' : 'caller cannot be authenticated now'}: ${refusal.problems.join('; ')}`,
  };
}

export type Admission = { caller: Caller; body: unknown } | { refusal: Refusal };

const MISSING_BEARER = 'missing a bearer token: send Authorization: Bearer <JWT>';
const MISSING_SOCKET_BEARER = "missing a bearer token: send connectionParams.authorization or the upgrade's Authorization header";
/**
 * The HMAC signature signs an HTTP body's query and variables: a WebSocket
 * has no such body, so it cannot carry the proof. Only the router secret,
 * which the upgrade's headers do carry, vouches for the router instead.
 */
const HMAC_OVER_SOCKET =
  'CALLER_AUTH requires hmac, which signs an HTTP body: a WebSocket cannot carry it (add router-secret, or subscribe through the callback protocol)';
/** The header that names a router's client: often the client's own value, forwarded; a label unless CALLER_NAME_HEADER_TRUSTED. */
const CLIENT_NAME_HEADER = 'apollographql-client-name';
/** Where Hive Gateway's JWT plugin forwards the verified token's claims (`forward.payload`) and the token (`forward.token`). */
const FORWARDED_JWT_EXTENSION = 'jwt';
const CLAIMS_WITHOUT_TOKEN =
  'extensions.jwt holds claims without their token: forwarded claims are accepted only with the token itself ' +
  "(Hive Gateway's JWT plugin: forward: { payload: true, token: true })";

/**
 * The proofs CALLER_AUTH asks of every /graphql request, checked before
 * GraphQL parses anything and before any budget is spent. Header proofs
 * (router secret, bearer JWT) are checked before the body is even read; the
 * HMAC signature and the forwarded token live in the body's `extensions`.
 */
export class CallerGate {
  private readonly jwt: JwtVerifier | undefined;

  constructor(
    private readonly config: CallerAuthConfig,
    options: CallerGateOptions = {},
  ) {
    const onJwksFailure = (jwksUrl: string, problem: string) =>
      options.logger?.warn({ jwksUrl, problem }, 'JWKS fetch failed: bearer tokens cannot be verified (503) until it answers');
    this.jwt = config.jwt === undefined ? undefined : createJwtVerifier(config.jwt, { onJwksFailure });
  }

  /** For the start-up log: which proofs are required (`none` when the port is open). */
  describe(): string {
    return this.config.proofs.length === 0 ? 'none' : this.config.proofs.join(', ');
  }

  /** Checks the proofs and, once the headers pass, reads the body with `readBody`. */
  async admit(request: IncomingMessage, readBody: () => Promise<unknown>): Promise<Admission> {
    const { proofs } = this.config;
    if (proofs.length === 0) return { caller: this.openCaller(request), body: await readBody() };
    // A landing-page GET executes nothing: it carries neither a query nor a persisted query's hash.
    if (isLandingPageRequest(request)) return { caller: OPEN_CALLER, body: undefined };
    const problems: string[] = [];
    if (this.config.routerSecret !== undefined) problems.push(...routerSecretProblems(request, this.config.routerSecret));
    const bearer = bearerToken(request);
    let claims: Claims | undefined;
    if (this.jwt !== undefined && bearer !== undefined) {
      if ('problem' in bearer) problems.push(bearer.problem);
      else {
        const jwt = this.jwt;
        const result = await verified(() => jwt.verify(bearer.token));
        if ('refusal' in result) return result;
        if ('problem' in result) problems.push(`the bearer token was refused: ${result.problem}`);
        else claims = result.claims;
      }
    }
    // Without hmac no claims can come in the body: a missing bearer token is known from the headers already.
    if (this.jwt !== undefined && bearer === undefined && this.config.hmac === undefined) problems.push(MISSING_BEARER);
    // Refused on headers alone: a stranger's body is never read.
    if (problems.length > 0) return { refusal: { status: 401, problems } };

    const body = await readBody();
    const params = operationParams(request, body);
    if (this.config.hmac !== undefined) {
      const problem = hmacProblem(params, this.config.hmac);
      if (problem !== undefined) problems.push(problem);
    }
    // Hive Gateway's forwarded token is verified against the JWKS like a bearer token, so it needs no signature to be
    // trusted; a refused signature and a good token name only the signature.
    if (this.jwt !== undefined && bearer === undefined) {
      const found = await this.forwardedClaims(params.extensions?.[FORWARDED_JWT_EXTENSION]);
      // Keys that cannot be fetched are no fault of the caller, unless the request is refused for its own fault already.
      if ('refusal' in found) {
        if (problems.length === 0) return found;
      } else if ('problem' in found) problems.push(found.problem);
      else claims = found.claims;
    }
    if (problems.length > 0) return { refusal: { status: 401, problems } };
    return { caller: this.callerOf(request, claims), body };
  }

  /**
   * A WebSocket upgrade (subscriptions): the proofs its headers can carry,
   * checked before any socket exists. The router secret must be there; a
   * bearer token on the Authorization header is verified now (else it may
   * come in the connection params, checked by `admitSocketConnection`).
   */
  async admitSocketUpgrade(request: IncomingMessage): Promise<Refusal | undefined> {
    if (this.config.proofs.length === 0) return undefined;
    const problems: string[] = [];
    if (this.config.hmac !== undefined && this.config.routerSecret === undefined) problems.push(HMAC_OVER_SOCKET);
    if (this.config.routerSecret !== undefined) problems.push(...routerSecretProblems(request, this.config.routerSecret));
    const bearer = bearerToken(request);
    if (this.jwt !== undefined && bearer !== undefined) {
      const found = await this.bearerClaims(bearer);
      if ('refusal' in found) return found.refusal;
      if ('problem' in found) problems.push(found.problem);
    }
    return problems.length > 0 ? { status: 401, problems } : undefined;
  }

  /**
   * A WebSocket's `connection_init` (its upgrade admitted already): the
   * caller every subscription of the connection runs as. With the jwt proof,
   * the token from the upgrade's Authorization header or, as browsers, Apollo
   * Router's passthrough and Hive Gateway can send it, from
   * `connectionParams.authorization` (`Bearer <JWT>`), and when that token
   * expires (`expiresAt`, ms): the socket is closed then.
   */
  async admitSocketConnection(
    request: IncomingMessage,
    connectionParams: Readonly<Record<string, unknown>> | undefined,
  ): Promise<{ caller: Caller; expiresAt?: number } | { problem: string }> {
    if (this.config.proofs.length === 0) return { caller: this.openCaller(request) };
    if (this.jwt === undefined) return { caller: this.callerOf(request, undefined) };
    const bearer = bearerToken(request) ?? bearerParam(connectionParams);
    if (bearer === undefined) return { problem: MISSING_SOCKET_BEARER };
    const found = await this.bearerClaims(bearer);
    if ('refusal' in found) return { problem: found.refusal.problems.join('; ') };
    if ('problem' in found) return found;
    // The verifier requires exp: the socket ends with the token (src/web/subscriptions/socketExpiry.ts).
    const exp = found.claims.exp;
    return { caller: this.callerOf(request, found.claims), ...(typeof exp === 'number' ? { expiresAt: exp * 1000 } : {}) };
  }

  private async bearerClaims(
    bearer: { token: string } | { problem: string },
  ): Promise<{ claims: Claims } | { problem: string } | { refusal: Refusal }> {
    if ('problem' in bearer) return bearer;
    const jwt = this.jwt!;
    const result = await verified(() => jwt.verify(bearer.token));
    return 'problem' in result ? { problem: `the bearer token was refused: ${result.problem}` } : result;
  }

  /**
   * Hive Gateway's forwarded JWT (`extensions.jwt`): accepted only with the
   * token itself (`forward: { token: true }`), verified against the JWKS.
   * The claims beside it (`payload`) are never read: Hive's HMAC signs the
   * query and variables, not `extensions`, so a payload alone proves nothing.
   */
  private async forwardedClaims(forwarded: unknown): Promise<{ claims: Claims } | { problem: string } | { refusal: Refusal }> {
    if (!isRecord(forwarded)) return { problem: `${MISSING_BEARER}, or the token Hive Gateway forwards in extensions.jwt` };
    const token = isRecord(forwarded.token) ? forwarded.token.value : undefined;
    if (typeof token !== 'string' || token === '') return { problem: CLAIMS_WITHOUT_TOKEN };
    const jwt = this.jwt!;
    const result = await verified(() => jwt.verify(token));
    return 'problem' in result ? { problem: `the forwarded token was refused: ${result.problem}` } : result;
  }

  /**
   * The admitted caller: its id from the verified claims, or from the client
   * name only when CALLER_NAME_HEADER_TRUSTED says the router sets it; else
   * `unverified`. The client name is kept as a label either way.
   */
  private callerOf(request: IncomingMessage, claims: Claims | undefined): Caller {
    const clientName = clientNameOf(headerValue(request, CLIENT_NAME_HEADER));
    const caller: Caller = { id: callerIdOf(claims, this.config.clientNameTrusted === true ? clientName : undefined) };
    if (clientName !== undefined) caller.clientName = clientName;
    if (this.jwt !== undefined && claims !== undefined) {
      caller.scopes = scopesOf(claims);
      const sitesClaim = this.config.jwt?.sitesClaim;
      if (sitesClaim !== undefined) caller.sites = sitesOf(claims, sitesClaim);
    }
    return caller;
  }

  /** CALLER_AUTH=none: every caller is unverified; the client name is a label. */
  private openCaller(request: IncomingMessage): Caller {
    const clientName = clientNameOf(headerValue(request, CLIENT_NAME_HEADER));
    return clientName === undefined ? OPEN_CALLER : { ...OPEN_CALLER, clientName };
  }
}

async function verified(run: () => Promise<Claims>): Promise<{ claims: Claims } | { problem: string } | { refusal: Refusal }> {
  try {
    return { claims: await run() };
  } catch (error) {
    if (!(error instanceof TokenRefused)) throw error;
    if (error.retryAfterSeconds !== undefined) {
      return {
        refusal: { status: 503, problems: [`tokens cannot be verified now: ${error.message}`], retryAfterSeconds: error.retryAfterSeconds },
      };
    }
    return { problem: error.message };
  }
}

function routerSecretProblems(
  request: IncomingMessage,
  { header, secret, previous }: NonNullable<CallerAuthConfig['routerSecret']>,
): string[] {
  const presented = headerValue(request, header);
  if (presented === undefined) return [`missing the ${header} header`];
  // Both compared every time: which one matched must not show in the timing either.
  const current = isRouterSecret(presented, secret);
  const rotatedOut = previous !== undefined && isRouterSecret(presented, previous);
  return current || rotatedOut ? [] : [`the ${header} header does not hold the router's secret`];
}

function hmacProblem(params: OperationParams, { secret, previous }: NonNullable<CallerAuthConfig['hmac']>): string | undefined {
  const signature = params.extensions?.[HMAC_EXTENSION];
  if (typeof signature !== 'string' || signature === '') return `missing extensions["${HMAC_EXTENSION}"] (the router's HMAC signature)`;
  const current = isValidSignature(params, signature, secret);
  const rotatedOut = previous !== undefined && isValidSignature(params, signature, previous);
  return current || rotatedOut ? undefined : `extensions["${HMAC_EXTENSION}"] does not match the request's query and variables`;
}

function bearerToken(request: IncomingMessage): { token: string } | { problem: string } | undefined {
  const value = headerValue(request, 'authorization');
  if (value === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match === null ? { problem: 'the Authorization header is not a Bearer token' } : { token: match[1] };
}

/** `connectionParams.authorization` (or `Authorization`): where a WebSocket client puts its bearer token. */
function bearerParam(params: Readonly<Record<string, unknown>> | undefined): { token: string } | { problem: string } | undefined {
  const value = params?.authorization ?? params?.Authorization;
  if (value === undefined || value === null || value === '') return undefined;
  const match = typeof value === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match === null ? { problem: 'connectionParams.authorization is not a Bearer token' } : { token: match[1] };
}

interface OperationParams extends SignedParams {
  extensions?: Record<string, unknown>;
}

/** What the router sent: a POST's JSON body, or a GET's search parameters (variables and extensions as JSON). */
function operationParams(request: IncomingMessage, body: unknown): OperationParams {
  if (request.method !== 'GET') {
    if (!isRecord(body)) return {};
    return { query: body.query, variables: body.variables, ...(isRecord(body.extensions) ? { extensions: body.extensions } : {}) };
  }
  const search = new URLSearchParams(searchOf(request.url));
  const extensions = parseJson(search.get('extensions'));
  return {
    query: search.get('query') ?? undefined,
    variables: parseJson(search.get('variables')),
    ...(isRecord(extensions) ? { extensions } : {}),
  };
}

function isLandingPageRequest(request: IncomingMessage): boolean {
  if (request.method !== 'GET') return false;
  const search = new URLSearchParams(searchOf(request.url));
  return !search.has('query') && !search.has('extensions');
}

function searchOf(url: string | undefined): string {
  const index = url === undefined ? -1 : url.indexOf('?');
  return index < 0 ? '' : url!.slice(index + 1);
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
