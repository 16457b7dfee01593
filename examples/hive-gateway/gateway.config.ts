/**
 * Hive Gateway (`@graphql-hive/gateway` 2.x) in front of a supergraph that
 * includes the analytics subgraph: demand control at the limit the subgraph's
 * @cost / @listSize weights are tuned for, and response caching that keeps
 * the answers the subgraph marks PRIVATE (@cacheControl, composed into the
 * supergraph) to the caller they were made for, and, with ROUTER_HMAC_SECRET
 * set, the HMAC signature the subgraph's `CALLER_AUTH=hmac` checks.
 *
 * Run it from this directory, where the CLI finds `gateway.config.ts`:
 *   npx @graphql-hive/gateway supergraph supergraph.graphql
 * (compose supergraph.graphql with rover, GraphOS or @apollo/composition).
 * The object is typed with the gateway runtime's types so the project needs
 * only the runtime; with the CLI installed, `defineConfig` from
 * `@graphql-hive/gateway` takes the same object.
 *
 * test/federation/hiveGateway.test.ts runs exactly this configuration;
 * docs/routers.md explains the numbers.
 */
import type { GatewayConfigSupergraph } from '@graphql-hive/gateway-runtime';

/**
 * Hive prices one reporting-API query (a dashboard, one window of article
 * analytics, a default topArticles) at 9,000 and two at 18,000: this lets one
 * through and refuses two. It is 15 times Apollo Router's `max: 1000`, because
 * Hive multiplies the dashboard's 600 by the field's list size (15).
 */
export const HIVE_MAX_COST = 15_000;

export const gatewayConfig = {
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
  // Signs every subgraph request (extensions["hmac-signature"] over the query and variables) with the secret the
  // subgraph checks when CALLER_AUTH includes hmac (docs/security.md, with the JWT forwarding that goes with it).
  ...(process.env.ROUTER_HMAC_SECRET === undefined ? {} : { hmacSignature: { secret: process.env.ROUTER_HMAC_SECRET } }),
} satisfies Pick<GatewayConfigSupergraph, 'demandControl' | 'responseCaching' | 'hmacSignature'>;
