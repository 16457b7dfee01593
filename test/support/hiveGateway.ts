/**
 * Hive Gateway (the Guild's federation router) for the federation tests: its
 * runtime in-process (`@graphql-hive/gateway-runtime`, what the
 * `@graphql-hive/gateway` CLI serves), over a supergraph composed in the test,
 * on a free loopback port, fetching from the subgraphs over real HTTP and
 * WebSocket. The configuration comes from the shipped example
 * (examples/hive-gateway), so the tests prove what users copy; what the CLI
 * adds around the runtime is done here as the CLI does it: its `jwt` option
 * becomes the JWT plugin, the `http` and `ws` transports are given by name,
 * and clients may subscribe over WebSocket on the GraphQL path.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, getGraphQLWSOptions, type GatewayConfigSupergraph, type GatewayPlugin } from '@graphql-hive/gateway-runtime';
import InMemoryLRUCache from '@graphql-mesh/cache-inmemory-lru';
import { useJWT, type JWTAuthPluginOptions } from '@graphql-mesh/plugin-jwt-auth';
import httpTransport from '@graphql-mesh/transport-http';
import wsTransport from '@graphql-mesh/transport-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
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
  /** The same endpoint for WebSocket clients (graphql-transport-ws), `ws://127.0.0.1:<port>/graphql`. */
  wsUrl: string;
  close(): Promise<void>;
}

/** What a gateway.config.ts may set beside the supergraph: the runtime's options, and the CLI's `jwt`. */
export type HiveGatewayOptions = Partial<Omit<GatewayConfigSupergraph, 'supergraph'>> & { jwt?: JWTAuthPluginOptions };

export async function startHiveGateway(supergraphSdl: string, options: HiveGatewayOptions): Promise<RunningHiveGateway> {
  const cache = new InMemoryLRUCache();
  const { jwt, plugins, ...runtimeOptions } = options;
  const gateway = createGatewayRuntime({
    supergraph: supergraphSdl,
    cache,
    logging: false,
    // What the CLI loads by name for the subgraphs' transport kinds; given here so the dependencies are explicit.
    transports: { http: httpTransport, ws: wsTransport },
    // The gateway's own landing page and GraphiQL are not under test.
    landingPage: false,
    graphiql: false,
    ...runtimeOptions,
    // As the CLI turns its `jwt` option into the JWT plugin (before the config's own plugins). The cast: the plugin's
    // bundled type declarations carry their own copy of the runtime's Logger class, which TypeScript deems another type.
    plugins: (context) => [...(jwt === undefined ? [] : [useJWT(jwt) as unknown as GatewayPlugin]), ...(plugins?.(context) ?? [])],
  });
  // The supergraph loaded before the first client: a WebSocket client's operation does not load it (GraphQL over
  // WebSocket skips the HTTP hooks that do) and would meet "Expected null to be a GraphQL schema".
  await gateway.getSchema();
  const server = createServer(gateway);
  // As the CLI's Node server: graphql-ws on the GraphQL path, each socket's context with its upgrade request.
  const sockets = new WebSocketServer({ path: gateway.graphqlEndpoint, server });
  const graphqlWs = useServer(
    getGraphQLWSOptions<Record<string, unknown>, Extra>(gateway, (context) => ({
      req: context.extra.request,
      socket: context.extra.socket,
      request: asFetchRequest(context.extra.request),
    })),
    sockets,
  );
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    async close() {
      for (const socket of sockets.clients) socket.terminate();
      await graphqlWs.dispose();
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      // fetch keeps connections alive; close() alone would wait for them.
      server.closeAllConnections();
      await closed;
      await gateway.dispose();
      cache[Symbol.dispose]?.();
    },
  };
}

/** The upgrade request as a fetch Request (what the CLI's normalizeNodeRequest gives the gateway's plugins). */
function asFetchRequest(request: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url ?? '/'}`, { headers });
}

/** The environment examples/hive-gateway/gateway.config.ts reads. */
export interface HiveExampleEnv {
  ROUTER_SECRET: string;
  ROUTER_HMAC_SECRET: string;
  JWT_JWKS_URL: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
}

/** For tests of the example's demand control and response cache only: its security settings are then not reached. */
export const PLACEHOLDER_EXAMPLE_ENV: HiveExampleEnv = {
  ROUTER_SECRET: 'placeholder-router-secret',
  ROUTER_HMAC_SECRET: 'placeholder-hmac-secret',
  JWT_JWKS_URL: 'http://127.0.0.1:9/.well-known/jwks.json',
  JWT_ISSUER: 'https://idp.invalid/',
  JWT_AUDIENCE: 'analytics',
};

/**
 * The shipped example, loaded as the CLI loads it: with its environment set (jest gives each test file its own
 * `process.env`; the gateway reads `{env.ROUTER_SECRET}` from it at each request, so it stays set).
 */
export function loadHiveExample(env: HiveExampleEnv): typeof import('../../examples/hive-gateway/gateway.config') {
  Object.assign(process.env, env);
  // require, not import(): the example must be evaluated after the environment is set, and a CommonJS test
  // program's import() resolves as ESM (which wants the file's extension).
  return require('../../examples/hive-gateway/gateway.config') as typeof import('../../examples/hive-gateway/gateway.config');
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
