/**
 * Live numbers through Hive Gateway's runtime (`@graphql-hive/gateway-runtime`,
 * what the `@graphql-hive/gateway` CLI serves): the subgraph's transport entry
 * sends subscriptions over WebSocket to /graphql (docs/subscriptions.md), and
 * the gateway's clients subscribe over SSE. A refresh reaches every client once,
 * with no vendor query beyond the table's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, type GatewayRuntime } from '@graphql-hive/gateway-runtime';
import httpTransport from '@graphql-mesh/transport-http';
import { print, type DocumentNode } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TimeUnit } from '../../contract';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';

jest.setTimeout(30_000);

interface Ranking {
  topArticles: { value: number; article: { url: string } }[];
}

/**
 * The gateway's `ws` transport kind, as @graphql-mesh/transport-ws builds it: a graphql-ws client on the
 * entry's subscription location (the gateway resolves `location` against the subgraph's URL), each
 * execution request one subscription on it.
 */
const wsTransport = {
  getSubgraphExecutor: ({ transportEntry }: { transportEntry: { location?: string } }) => {
    const client = createClient({
      url: (transportEntry.location ?? '').replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    const executor = (request: { document: DocumentNode; variables?: Record<string, unknown>; operationName?: string }) =>
      client.iterate({
        query: print(request.document),
        ...(request.variables === undefined ? {} : { variables: request.variables }),
        ...(request.operationName === undefined ? {} : { operationName: request.operationName }),
      });
    return Object.assign(executor, { [Symbol.asyncDispose]: () => client.dispose() });
  },
};

let live: LiveOverHttp;
let gateway: GatewayRuntime;
let server: Server;
let gatewayUrl: string;

beforeAll(async () => {
  live = await startLiveOverHttp();
  const { supergraphSdl } = composeSupergraph([{ name: ANALYTICS_SUBGRAPH_NAME, url: live.graphqlUrl, typeDefs: loadAnalyticsTypeDefs() }]);
  gateway = createGatewayRuntime({
    supergraph: supergraphSdl,
    logging: false,
    landingPage: false,
    graphiql: false,
    // graphql-ws yields its (JSON) FormattedExecutionResult, which is what the gateway reads of an ExecutionResult.
    transports: { http: httpTransport, ws: wsTransport as unknown as typeof httpTransport },
    // As docs/subscriptions.md shows it for gateway.config.ts.
    transportEntries: { [ANALYTICS_SUBGRAPH_NAME]: { options: { subscriptions: { kind: 'ws', location: '/graphql' } } } },
  });
  server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  await gateway?.dispose();
  await live?.close();
});

interface SseSubscriber {
  results: { data?: Ranking; errors?: unknown[] }[];
  received(count: number): Promise<void>;
  abort(): void;
}

/** A client of the gateway subscribing over Server-Sent Events (GraphQL over SSE, distinct connections). */
function subscribeOverSse(query: string): SseSubscriber {
  const controller = new AbortController();
  const results: SseSubscriber['results'] = [];
  const watchers: { count: number; reached: () => void }[] = [];
  void (async () => {
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
      signal: controller.signal,
    });
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('');
        if (data === '' || !event.split('\n').some((line) => line === 'event: next')) continue;
        results.push(JSON.parse(data));
        for (const watcher of [...watchers]) {
          if (results.length < watcher.count) continue;
          watchers.splice(watchers.indexOf(watcher), 1);
          watcher.reached();
        }
      }
    }
  })().catch(() => undefined);
  return {
    results,
    received: (count) => (results.length >= count ? Promise.resolve() : new Promise((reached) => watchers.push({ count, reached }))),
    abort: () => controller.abort(),
  };
}

it('carries subscriptions over WebSocket from the gateway: every client gets the ranking and each change once, one vendor query', async () => {
  const query = `subscription { topArticles(limit: 3) { value article { url } } }`;
  const clients = [subscribeOverSse(query), subscribeOverSse(query), subscribeOverSse(query)];
  await Promise.all(clients.map((client) => client.received(1)));
  for (const client of clients) {
    expect(client.results[0].errors).toBeUndefined();
    expect(client.results[0].data?.topArticles).toHaveLength(3);
  }
  expect(live.recorder.dashboards).toHaveLength(1);

  // A refresh as the tables write it, with the leader changed.
  const key = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 3 })).key;
  const table = await live.store.table(key);
  if (table === undefined) throw new Error('no table');
  const [leader, values] = [...table.rows][0];
  await live.store.setTable({
    ...table,
    rows: new Map(table.rows).set(leader, { ...values, pageViewsTotal: 7_777_777 }),
    fetchedAt: live.clock.now(),
  });
  await Promise.all(clients.map((client) => client.received(2)));
  for (const client of clients) {
    expect(client.results).toHaveLength(2);
    expect(client.results[1].data?.topArticles[0]).toEqual({ value: 7_777_777, article: { url: leader } });
  }
  expect(live.recorder.dashboards).toHaveLength(1);
  for (const client of clients) client.abort();
});
