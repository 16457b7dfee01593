import type { EnvReader } from './env';

/**
 * node:http's connection timeouts, in milliseconds (not read from the environment).
 * - keepAliveMs: how long an idle keep-alive connection stays open. Above the
 *   idle timeout of the client's connection pool, so the client, not we,
 *   closes idle connections (else it may send a request on a connection we
 *   are closing: a reset). Apollo Router's pool closes idle connections after
 *   5 s; Node's own default is also 5 s, a race.
 * - headersMs: a new connection must have sent complete headers by then; a
 *   socket that never sends a byte is closed after it. Above keepAliveMs.
 * - requestMs: the whole request (headers and body) must have arrived by then.
 * - checkIntervalMs: how often Node looks for connections past these limits.
 */
export interface HttpTimeouts {
  keepAliveMs: number;
  headersMs: number;
  requestMs: number;
  checkIntervalMs: number;
}

const HTTP_TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({
  keepAliveMs: 15_000,
  headersMs: 20_000,
  requestMs: 30_000,
  checkIntervalMs: 1_000,
});

/** The HTTP server and how it presents itself. */
export interface ServerSettings {
  port: number;
  production: boolean;
  logLevel: string;
  /** Browser origins allowed to call /graphql (CORS); development adds the hosted Apollo Sandbox. */
  corsOrigins: string[];
  /** After SIGTERM: how long /health/ready answers 503 while GraphQL keeps serving, before the listener closes. */
  shutdownDelaySeconds: number;
  /** Apollo's response cache for public operations (RESPONSE_CACHE_ENABLED). */
  responseCacheEnabled: boolean;
  /** What a browser's GET /graphql shows (LANDING_PAGE). */
  landingPage: LandingPage;
  httpTimeouts: HttpTimeouts;
  /**
   * Whether `_service { sdl }` carries @authenticated and @requiresScopes (SCHEMA_AUTHORIZATION_DIRECTIVES): `false` for
   * @apollo/gateway, which refuses a supergraph that links them. The subgraph enforces them either way.
   */
  schemaAuthorizationDirectives: boolean;
}

/**
 * `sandbox`: Apollo Sandbox, loaded from Apollo's CDN; `offline`: GraphiQL
 * bundled in the package, nothing loaded from elsewhere; `none`: no page.
 */
export const LANDING_PAGES = ['sandbox', 'offline', 'none'] as const;
export type LandingPage = (typeof LANDING_PAGES)[number];

/** Production has shown no landing page since the start: the default keeps it so. */
export function defaultLandingPage(production: boolean): LandingPage {
  return production ? 'none' : 'sandbox';
}

export const SERVER_DEFAULTS: Readonly<Omit<ServerSettings, 'production' | 'corsOrigins' | 'landingPage' | 'httpTimeouts'>> = Object.freeze(
  {
    port: 4001,
    logLevel: 'info',
    shutdownDelaySeconds: 5,
    responseCacheEnabled: true,
    schemaAuthorizationDirectives: true,
  },
);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function readServer(reader: EnvReader, env: NodeJS.ProcessEnv): ServerSettings {
  const production = env.NODE_ENV === 'production';
  return {
    port: reader.integer('PORT', { min: 0, max: 65_535 }) ?? SERVER_DEFAULTS.port,
    production,
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS) ?? SERVER_DEFAULTS.logLevel,
    corsOrigins: readOrigins(reader, 'CORS_ORIGINS'),
    shutdownDelaySeconds: reader.integer('SHUTDOWN_DELAY_SECONDS', { min: 0, max: 600 }) ?? SERVER_DEFAULTS.shutdownDelaySeconds,
    responseCacheEnabled: reader.boolean('RESPONSE_CACHE_ENABLED') ?? SERVER_DEFAULTS.responseCacheEnabled,
    landingPage: reader.oneOf('LANDING_PAGE', LANDING_PAGES) ?? defaultLandingPage(production),
    httpTimeouts: { ...HTTP_TIMEOUTS },
    schemaAuthorizationDirectives: reader.boolean('SCHEMA_AUTHORIZATION_DIRECTIVES') ?? SERVER_DEFAULTS.schemaAuthorizationDirectives,
  };
}

/** A comma-separated list of exact origins (`https://host[:port]`), as browsers send them in `Origin`. */
function readOrigins(reader: EnvReader, name: string): string[] {
  const origins: string[] = [];
  for (const raw of (reader.raw(name) ?? '').split(',')) {
    const value = raw.trim();
    if (value === '') continue;
    const origin = asOrigin(value);
    if (origin === undefined) {
      reader.problem(
        `${name} must list origins like https://app.example.com (scheme, host, optional port; no path), comma-separated (got ${JSON.stringify(value)})`,
      );
    } else {
      origins.push(origin);
    }
  }
  return origins;
}

function asOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
