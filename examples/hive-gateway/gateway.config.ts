/**
 * Hive Gateway (`@graphql-hive/gateway` 2.x) in front of a supergraph that
 * includes the analytics subgraph, secured and live: the configuration for a
 * subgraph started with `CALLER_AUTH=router-secret,hmac,jwt`
 * (docs/security.md#hive-gateway, docs/subscriptions.md#hive-gateway).
 *
 * - HMAC: every subgraph request signed with ROUTER_HMAC_SECRET.
 * - The caller's JWT: verified at the edge (from `Authorization: Bearer`, or
 *   a WebSocket client's `connectionParams.authorization`), and forwarded with
 *   the token itself, so the subgraph verifies its signature too.
 * - Scopes: the supergraph's @requiresScopes, from `scope` or `scp`; a field
 *   out of scope is null with an error, the rest of the operation answers.
 * - The client's name (`apollographql-client-name`) and the router secret on
 *   every request to the analytics subgraph.
 * - Subscriptions to the subgraph over WebSocket on /graphql, with their own
 *   headers (the router secret: Hive sends a `ws` entry no other header) and
 *   the caller's token in `connectionParams`.
 * - Demand control at the limit the subgraph's @cost / @listSize weights are
 *   tuned for, and a response cache that keeps PRIVATE answers to their caller.
 *
 * Run it from this directory, where the CLI finds `gatewayConfig`, with the
 * environment below set:
 *   npx @graphql-hive/gateway supergraph supergraph.graphql
 * (compose supergraph.graphql with `npm run supergraph`, docs/routers.md). The
 * object is typed with the gateway runtime's types so the project needs only
 * the runtime; with the CLI installed, `defineConfig` from
 * `@graphql-hive/gateway` takes the same object.
 *
 * test/examples/hiveGatewayExample.test.ts starts the runtime from exactly
 * this file; test/federation/hiveGateway.test.ts measures its demand control
 * and response cache (the numbers in docs/routers.md).
 */
import { useGenericAuth } from '@envelop/generic-auth';
import type { GatewayConfigSupergraph, GatewayPlugin } from '@graphql-hive/gateway-runtime';
import {
  createRemoteJwksSigningKeyProvider,
  extractFromHeader,
  type ExtractTokenFunction,
  type JWTAuthPluginOptions,
} from '@graphql-mesh/plugin-jwt-auth';

/** The analytics subgraph's name in the supergraph (`npm run supergraph` names it so). */
const ANALYTICS = 'analytics';

/**
 * Hive prices one reporting-API query (a dashboard, one window of article
 * analytics, a default topArticles) at 9,000 and two at 18,000: this lets one
 * through and refuses two. It is 15 times Apollo Router's `max: 1000`, because
 * Hive multiplies the dashboard's 600 by the field's list size (15).
 */
export const HIVE_MAX_COST = 15_000;

/** The environment this configuration needs; the gateway refuses to start without it, naming what is missing. */
const REQUIRED = ['ROUTER_SECRET', 'ROUTER_HMAC_SECRET', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE'] as const;
const missing = REQUIRED.filter((name) => !process.env[name]);
if (missing.length > 0) throw new Error(`gateway.config.ts: set ${missing.join(', ')} (docs/security.md#hive-gateway)`);
const env = Object.fromEntries(REQUIRED.map((name) => [name, process.env[name] as string])) as Record<(typeof REQUIRED)[number], string>;

/**
 * A browser's WebSocket cannot send headers: its token comes in `connectionParams.authorization` as
 * `Bearer <JWT>`. (The plugin's `extractFromConnectionParams` would keep the `Bearer ` prefix in the token.)
 */
const fromConnectionParams: ExtractTokenFunction = ({ serverContext }) => {
  const params = serverContext.connectionParams as Record<string, unknown> | undefined;
  const match = typeof params?.authorization === 'string' ? /^Bearer\s+(\S+)$/i.exec(params.authorization) : null;
  return match === null ? undefined : { prefix: 'Bearer', token: match[1] };
};

/** The JWT's scopes, as the subgraph reads them: `scope` (space-separated) or `scp` (an array, or a string). */
function scopesOf(claims: Record<string, unknown> | undefined): string[] {
  const words = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : typeof value === 'string'
        ? value.split(' ')
        : [];
  return [...words(claims?.scope), ...words(claims?.scp)].filter((scope) => scope !== '');
}

export const gatewayConfig = {
  // Signs every subgraph request (extensions["hmac-signature"] over the query and variables): CALLER_AUTH's hmac.
  hmacSignature: { secret: env.ROUTER_HMAC_SECRET },

  // The CLI's `jwt` option (its JWT plugin, @graphql-mesh/plugin-jwt-auth).
  jwt: {
    tokenLookupLocations: [extractFromHeader({ name: 'authorization', prefix: 'Bearer' }), fromConnectionParams],
    signingKeyProviders: [createRemoteJwksSigningKeyProvider({ jwksUri: env.JWT_JWKS_URL })],
    tokenVerification: { issuer: env.JWT_ISSUER, audience: env.JWT_AUDIENCE, algorithms: ['RS256', 'PS256', 'ES256'] },
    reject: { missingToken: true, invalidToken: true },
    // The token too (extensions.jwt.token): the subgraph verifies its signature, not only the forwarded claims.
    forward: { payload: true, token: true },
  },

  // Hive's genericAuth as a plugin, not the `genericAuth` option: the option's plugin runs before the CLI's JWT
  // plugin, so a WebSocket client (whose token is verified only as its context is built) would reach it with no
  // claims yet, and every scoped field would be refused. As a plugin it runs after the JWT plugin, on every transport.
  plugins: () => [
    useGenericAuth({
      mode: 'protect-granular',
      // The verified token's claims (the JWT plugin puts them on the context).
      resolveUserFn: (context: Record<string, unknown>) => (context.jwt as { payload?: Record<string, unknown> } | undefined)?.payload,
      extractScopes: (user: Record<string, unknown>) => scopesOf(user),
      // Hive's default (true) refuses the whole operation with a 401 when one field is out of scope; false removes
      // that field (null, with an UNAUTHORIZED_FIELD_OR_TYPE error) and answers the rest, as the subgraph does.
      rejectUnauthenticated: false,
      // The plugin is typed with the context fields it adds, which the gateway's plugin list does not name.
    }) as GatewayPlugin,
  ],

  // To the analytics subgraph over HTTP: who the client is (its fair share of the reporting budget is counted per
  // name when its token has no azp / client_id).
  propagateHeaders: {
    fromClientToSubgraphs: ({ request, subgraphName }: { request: Request; subgraphName: string }) => {
      if (subgraphName !== ANALYTICS) return undefined;
      const clientName = request.headers.get('apollographql-client-name');
      return clientName === null ? undefined : { 'apollographql-client-name': clientName };
    },
  },

  transportEntries: {
    [ANALYTICS]: {
      // Every HTTP request to the subgraph carries the router secret (`{env.…}`: read by Hive, never in this file).
      headers: [['x-router-secret', '{env.ROUTER_SECRET}']],
      options: {
        subscriptions: {
          kind: 'ws',
          location: '/graphql',
          // A `ws` subscription gets only these headers, none of the entry's: the secret again, on the upgrade.
          headers: [['x-router-secret', '{env.ROUTER_SECRET}']],
          // The caller's token for the subgraph's connection_init (one socket per token).
          options: { connectionParams: { authorization: 'Bearer {context.jwt.token.value}' } },
        },
      },
    },
  },

  demandControl: {
    maxCost: HIVE_MAX_COST,
    // `listSize` stays Hive's default: every list of the analytics subgraph has
    // its own @listSize, and Hive never sizes a non-null list (`[Article!]!`).
  },

  responseCaching: {
    // Who the caller is. An answer with a PRIVATE field or type (e.g. Reader)
    // is cached only under this session and served only to it; without a
    // session it is not cached at all. Every entry, public ones included, is
    // keyed by the session when there is one.
    session: (request: Request) => request.headers.get('authorization'),
    // For answers without any cache hint (ms); a hint or a subgraph's
    // `max-age` can only lower it.
    ttl: 60_000,
  },
} satisfies Partial<GatewayConfigSupergraph> & { jwt: JWTAuthPluginOptions };
