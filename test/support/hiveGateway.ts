/**
 * Hive Gateway (the Guild's federation router) for the federation tests: its
 * runtime in-process (`@graphql-hive/gateway-runtime`, what the
 * `@graphql-hive/gateway` CLI serves), over a supergraph composed in the test,
 * on a free loopback port, fetching from the subgraphs over real HTTP. The
 * configuration comes from the shipped example (examples/hive-gateway), so the
 * tests prove what users copy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, type GatewayConfigSupergraph } from '@graphql-hive/gateway-runtime';
import InMemoryLRUCache from '@graphql-mesh/cache-inmemory-lru';
import httpTransport from '@graphql-mesh/transport-http';
import cacheControlParser = require('cache-control-parser');

/**
 * The CommonJS build of @graphql-mesh/plugin-response-cache (0.107) calls
 * `require('cache-control-parser').default.parse`, which that package does not
 * export: under CommonJS (jest) every subgraph answer carrying `cache-control`
 * fails with "Cannot read properties of undefined (reading 'parse')". Its ESM
 * build gets the module as the default import and works; this gives the
 * CommonJS build the same module, so the tests see Hive's real behaviour.
 */
const parserModule = cacheControlParser as typeof cacheControlParser & { default?: typeof cacheControlParser };
parserModule.default ??= cacheControlParser;

export interface RunningHiveGateway {
  /** The GraphQL endpoint, `http://127.0.0.1:<port>/graphql`. */
  url: string;
  close(): Promise<void>;
}

/**
 * What a test may set beside the supergraph: the example's demand control and response caching, HMAC signing,
 * the edge's auth, and the headers it passes on to the subgraphs (a caller's bearer token).
 */
export type HiveGatewayOptions = Pick<
  GatewayConfigSupergraph,
  'demandControl' | 'responseCaching' | 'hmacSignature' | 'genericAuth' | 'propagateHeaders'
>;

export async function startHiveGateway(supergraphSdl: string, options: HiveGatewayOptions): Promise<RunningHiveGateway> {
  const cache = new InMemoryLRUCache();
  const gateway = createGatewayRuntime({
    supergraph: supergraphSdl,
    cache,
    logging: false,
    // What the CLI loads by name for every subgraph of a supergraph; given here so the dependency is explicit.
    transports: { http: httpTransport },
    // The gateway's own landing page and GraphiQL are not under test.
    landingPage: false,
    graphiql: false,
    ...options,
  });
  const server = createServer(gateway);
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    async close() {
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      // fetch keeps connections alive; close() alone would wait for them.
      server.closeAllConnections();
      await closed;
      await gateway.dispose();
      cache[Symbol.dispose]?.();
    },
  };
}

function listenOnFreePort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
