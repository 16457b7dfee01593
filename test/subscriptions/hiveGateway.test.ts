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
import { DEFAULT_SUBSCRIPTIONS_CONFIG } from '../../src/config';
import { readStats } from '../support/subgraphHttp';
import { AUDIENCE, callerAuth, ISSUER, serveJwks, signingKey, signToken, type JwksServer } from '../security/support';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';

jest.setTimeout(30_000);

interface Ranking {
  topArticles: { value: number; article: { url: string } }[];
}

/**
 * The gateway's `ws` transport kind, as @graphql-mesh/transport-ws builds it: a graphql-ws client on the
 * entry's subscription location (the gateway resolves `location` against the subgraph's URL), each
 * execution request one subscription on it. `connectionParams`: what the gateway's config sends in
 * `connection_init` (e.g. its own bearer token for a subgraph that requires CALLER_AUTH=jwt).
 */
function wsTransport(connectionParams?: Record<string, unknown>) {
  return {
    getSubgraphExecutor: ({ transportEntry }: { transportEntry: { location?: string } }) => {
      const client = createClient({
        url: (transportEntry.location ?? '').replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        ...(connectionParams === undefined ? {} : { connectionParams }),
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
}

interface RunningGateway {
  url: string;
  close(): Promise<void>;
}

/** The gateway's runtime over a supergraph of the one live subgraph, on a free loopback port. */
async function startGateway(subgraphUrl: string, connectionParams?: Record<string, unknown>): Promise<RunningGateway> {
  const { supergraphSdl } = composeSupergraph([{ name: ANALYTICS_SUBGRAPH_NAME, url: subgraphUrl, typeDefs: loadAnalyticsTypeDefs() }]);
  const gateway: GatewayRuntime = createGatewayRuntime({
    supergraph: supergraphSdl,
    logging: false,
    landingPage: false,
    graphiql: false,
    // graphql-ws yields its (JSON) FormattedExecutionResult, which is what the gateway reads of an ExecutionResult.
    transports: { http: httpTransport, ws: wsTransport(connectionParams) as unknown as typeof httpTransport },
    // As docs/subscriptions.md shows it for gateway.config.ts.
    transportEntries: { [ANALYTICS_SUBGRAPH_NAME]: { options: { subscriptions: { kind: 'ws', location: '/graphql' } } } },
  });
  const server: Server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.dispose();
    },
  };
}

let live: LiveOverHttp;
let gateway: RunningGateway;

beforeAll(async () => {
  live = await startLiveOverHttp();
  gateway = await startGateway(live.graphqlUrl);
});

afterAll(async () => {
  await gateway?.close();
  await live?.close();
});

interface SseResult {
  data?: Ranking | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

interface SseSubscriber {
  results: SseResult[];
  /** Resolves when the gateway ends the stream (its `complete` event, or the response's end). */
  ended: Promise<void>;
  received(count: number): Promise<void>;
  abort(): void;
}

/** A client of the gateway subscribing over Server-Sent Events (GraphQL over SSE, distinct connections). */
function subscribeOverSse(query: string, url = gateway.url): SseSubscriber {
  const controller = new AbortController();
  const results: SseSubscriber['results'] = [];
  const watchers: { count: number; reached: () => void }[] = [];
  const ended = (async () => {
    const response = await fetch(url, {
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
    ended,
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

it('passes a read over the budget on as a result carrying UPSTREAM_RATE_LIMITED and its retryAfter', async () => {
  // One vendor query a minute (the emulator's realistic profile): the day's ranking takes this minute's slot
  // (or finds its table written already), and the week's, a table of its own, waits past its deadline.
  const day = subscribeOverSse(`subscription { topArticles(limit: 3) { value } }`);
  await day.received(1);
  const week = subscribeOverSse(`subscription { topArticles(window: { last: { number: 7, unit: DAY } }, limit: 3) { value } }`);
  await week.received(1);
  const errors = week.results[0].errors ?? [];
  expect(errors.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
  expect(errors[0].extensions?.retryAfter).toEqual(expect.any(Number));
  for (const client of [day, week]) client.abort();
});

/**
 * A subscription the subgraph refuses reaches the gateway's client as a
 * result carrying the error and its code, then the end of the stream: never
 * as a transport failure (Hive answers an `error` message on the socket with
 * "Unexpected error." and INTERNAL_SERVER_ERROR). The gateway connects to a
 * subgraph that requires CALLER_AUTH=jwt with its own token (reporting:read,
 * one site), as a `connection_init` param.
 */
describe('refusals through the gateway', () => {
  const GLOBE = 'dailyglobe.example';
  const METRO = 'metrotimes.example';
  let jwks: JwksServer;
  let guarded: LiveOverHttp;
  let guardedGateway: RunningGateway;

  beforeAll(async () => {
    const key = await signingKey('key-1');
    jwks = await serveJwks([key]);
    guarded = await startLiveOverHttp({
      callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' }),
      subscriptions: { ...DEFAULT_SUBSCRIPTIONS_CONFIG, maxSubscriptions: 1 },
    });
    const token = await signToken(key, { claims: { scope: 'reporting:read', sites: [GLOBE] }, expiresIn: 3_600 });
    guardedGateway = await startGateway(guarded.graphqlUrl, { authorization: `Bearer ${token}` });
  });

  afterAll(async () => {
    await guardedGateway?.close();
    await guarded?.close();
    await jwks?.close();
  });

  async function upstreamCalls(): Promise<number> {
    const stats = await readStats(guarded.emulator);
    return stats.signin.count + stats.dashboard.count + stats.render.count;
  }

  /** The one result a refused subscription gets before its stream ends: its error codes and messages. */
  async function refusal(query: string): Promise<{ codes: unknown[]; messages: string[]; errors: SseResult['errors'] }> {
    const refused = subscribeOverSse(query, guardedGateway.url);
    await refused.ended;
    expect(refused.results).toHaveLength(1);
    const errors = refused.results[0].errors ?? [];
    return { codes: errors.map((error) => error.extensions?.code), messages: errors.map((error) => error.message), errors };
  }

  it('answers FORBIDDEN (a metric outside the scopes, a domain outside the sites) as a result, before any vendor query', async () => {
    const before = await upstreamCalls();
    const cpm = await refusal(`subscription { topArticles(metric: CPM, limit: 3) { value } }`);
    expect(cpm.codes).toEqual(['FORBIDDEN']);
    expect(cpm.messages[0]).toMatch(/revenue:read/);
    const metro = await refusal(`subscription { topArticles(domain: "${METRO}", limit: 3) { value } }`);
    expect(metro.codes).toEqual(['FORBIDDEN']);
    expect(metro.messages[0]).toContain(METRO);
    expect(await upstreamCalls()).toBe(before);
  });

  it('answers SUBSCRIPTION_LIMIT over MAX_SUBSCRIPTIONS as a result naming the cap, while the admitted one flows', async () => {
    const admitted = subscribeOverSse(`subscription { topArticles(limit: 3) { value article { url } } }`, guardedGateway.url);
    await admitted.received(1);
    expect(admitted.results[0].errors).toBeUndefined();
    const over = await refusal(`subscription { topArticles(limit: 2) { value } }`);
    expect(over.codes).toEqual(['SUBSCRIPTION_LIMIT']);
    expect(over.messages[0]).toMatch(/MAX_SUBSCRIPTIONS/);
    admitted.abort();
  });
});
