/**
 * examples/hive-gateway/gateway.config.ts, run as written: the Hive Gateway
 * runtime started from that file (test/support/hiveGateway.ts adds what the
 * CLI adds), in front of a subgraph with CALLER_AUTH=router-secret,hmac,jwt,
 * the emulator behind it, every hop real HTTP or WebSocket. What the docs
 * promise a platform team (docs/security.md#hive-gateway,
 * docs/subscriptions.md#hive-gateway): queries answered, a field out of scope
 * refused, a live ranking over SSE and over WebSocket with its refresh, and a
 * subscription out of scope refused.
 */
import { useGenericAuth } from '@envelop/generic-auth';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { TimeUnit } from '../../contract';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import {
  AUDIENCE,
  callerAuth,
  HMAC_SECRET,
  ISSUER,
  ROUTER_SECRET,
  serveJwks,
  signingKey,
  signToken,
  type JwksServer,
  type SigningKey,
} from '../security/support';
import { postGraphQL } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import { loadHiveExample, startHiveGateway, type RunningHiveGateway } from '../support/hiveGateway';
import { startLiveOverHttp, type LiveOverHttp } from '../subscriptions/support/liveOverHttp';

jest.setTimeout(60_000);

const DOMAIN = 'dailyglobe.example';
const TRAFFIC = `dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total }`;
const RANKING = `subscription Ranking { topArticles(limit: 3) { value article { url } } }`;

interface Ranking {
  topArticles: { value: number; article: { url: string } }[] | null;
}

interface Result<T> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

let key: SigningKey;
let jwks: JwksServer;
let live: LiveOverHttp;
let hive: RunningHiveGateway;
/** Between the gateway and the subgraph: the headers of every request and upgrade the subgraph receives. */
let seen: { upgrade: boolean; headers: IncomingHttpHeaders }[];
let proxy: Server;
let supergraphSdl: string;
let gatewayConfig: ReturnType<typeof loadHiveExample>['gatewayConfig'];
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
  live = await startLiveOverHttp({
    callerAuth: callerAuth(['router-secret', 'hmac', 'jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }),
  });
  ({ gatewayConfig } = loadHiveExample({
    ROUTER_SECRET,
    ROUTER_HMAC_SECRET: HMAC_SECRET,
    JWT_JWKS_URL: jwks.url,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
  }));
  const proxyUrl = await startHeaderRecorder(new URL(live.graphqlUrl));
  ({ supergraphSdl } = composeSupergraph([{ name: ANALYTICS_SUBGRAPH_NAME, url: proxyUrl, typeDefs: loadAnalyticsTypeDefs() }]));
  hive = await startHiveGateway(supergraphSdl, gatewayConfig);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await hive?.close();
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
  await live?.close();
  await jwks?.close();
});

/** Forwards HTTP requests and WebSocket upgrades to `target` unchanged, recording the headers of each. */
async function startHeaderRecorder(target: URL): Promise<string> {
  seen = [];
  proxy = createServer((incoming, outgoing) => {
    seen.push({ upgrade: false, headers: incoming.headers });
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  proxy.on('upgrade', (incoming, socket, head) => {
    seen.push({ upgrade: true, headers: incoming.headers });
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/graphql`;
}

const token = (scope: string, claims: Record<string, unknown> = {}) => signToken(key, { claims: { scope, ...claims } });

function experienceId(): string {
  const found = live.emulator.demo.experiences.find((experience) => experience.domain === DOMAIN);
  if (found === undefined) throw new Error(`no experience for ${DOMAIN}`);
  return found.id;
}

describe('queries through the example', () => {
  test('answered with the caller token: the subgraph got the router secret, the HMAC signature, the token and the client name', async () => {
    const answer = await postGraphQL<{ recommendations: { url: string }[] }>(
      hive.url,
      `{ recommendations(experienceId: "${experienceId()}", domain: "${DOMAIN}") { url } }`,
      {},
      { authorization: `Bearer ${await token('reporting:read')}`, 'apollographql-client-name': 'newsroom-wall' },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.recommendations.length).toBeGreaterThan(0);
    // The router secret and the client's name reached the subgraph (the rest its 200 shows).
    const last = seen.filter((request) => !request.upgrade).at(-1);
    expect(last?.headers['x-router-secret']).toBe(ROUTER_SECRET);
    expect(last?.headers['apollographql-client-name']).toBe('newsroom-wall');
  });

  test('refused at the edge without a token (the JWT plugin), before the subgraph is asked', async () => {
    const answer = await fetch(hive.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ recommendations(experienceId: "${experienceId()}", domain: "${DOMAIN}") { url } }` }),
    });
    expect(answer.status).toBe(401);
  });

  test('a field out of the token scopes is null with an error, the fields beside it answer, no reporting query', async () => {
    const before = live.recorder.dashboards.length;
    const answer = await postGraphQL<{ dashboard: unknown; recommendations: { url: string }[] }>(
      hive.url,
      `{ ${TRAFFIC} recommendations(experienceId: "${experienceId()}", domain: "${DOMAIN}") { url } }`,
      {},
      { authorization: `Bearer ${await token('profile')}` },
    );
    expect(answer.data?.dashboard ?? null).toBeNull();
    expect(answer.data?.recommendations.length).toBeGreaterThan(0);
    expect(answer.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHORIZED_FIELD_OR_TYPE']);
    // Hive's genericAuth marks a list field's path with "@" before its name.
    expect(answer.errors?.[0].path?.at(-1)).toBe('dashboard');
    expect(live.recorder.dashboards.length).toBe(before);
  });

  test("Hive's default protect-granular (rejectUnauthenticated: true) refuses the whole operation with 401 for one field", async () => {
    // The example with the one setting the docs warn about put back to Hive's default.
    const strict = await startHiveGateway(supergraphSdl, {
      ...gatewayConfig,
      plugins: () => [
        useGenericAuth({
          mode: 'protect-granular',
          resolveUserFn: (context: Record<string, unknown>) => (context.jwt as { payload?: Record<string, unknown> } | undefined)?.payload,
        }) as GatewayPlugin,
      ],
    });
    cleanups.push(() => strict.close());
    const response = await fetch(strict.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token('profile')}` },
      body: JSON.stringify({ query: `{ ${TRAFFIC} recommendations(experienceId: "${experienceId()}", domain: "${DOMAIN}") { url } }` }),
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as Result<unknown>;
    expect(body.data ?? null).toBeNull();
    expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHORIZED_FIELD_OR_TYPE']);
  });

  test('scopes are read from `scp` (an array) as from `scope`', async () => {
    const answer = await postGraphQL<{ dashboard: unknown }>(
      hive.url,
      `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [REVENUE_TOTAL] }) { total } }`,
      {},
      { authorization: `Bearer ${await signToken(key, { claims: { scp: ['reporting:read'] } })}` },
    );
    // Past the edge (the gateway read reporting:read from scp); the subgraph refuses the revenue metric itself.
    expect(answer.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
  });
});

/** A client of the gateway subscribing over Server-Sent Events (GraphQL over SSE, distinct connections). */
function subscribeOverSse(query: string, authorization: string): { results: Result<Ranking>[]; received(count: number): Promise<void> } {
  const controller = new AbortController();
  cleanups.push(() => controller.abort());
  const results: Result<Ranking>[] = [];
  const watchers: { count: number; reached: () => void }[] = [];
  void (async () => {
    const response = await fetch(hive.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization },
      body: JSON.stringify({ query }),
      signal: controller.signal,
    });
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const event = buffered.slice(0, end).split('\n');
        buffered = buffered.slice(end + 2);
        const data = event
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('');
        if (data === '' || !event.includes('event: next')) continue;
        results.push(JSON.parse(data) as Result<Ranking>);
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
  };
}

/** A graphql-ws client of the gateway, as a browser connects: the token in connectionParams, no header. */
function gatewaySocket(authorization: string): Client {
  const client = createClient({ url: hive.wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, connectionParams: { authorization } });
  cleanups.push(() => client.dispose());
  return client;
}

function subscribeOverWebSocket(
  client: Client,
  query: string,
): { results: Result<Ranking>[]; received(count: number): Promise<void>; ended: Promise<unknown> } {
  const results: Result<Ranking>[] = [];
  const watchers: { count: number; reached: () => void }[] = [];
  let end: (outcome: unknown) => void = () => undefined;
  const ended = new Promise<unknown>((resolve) => (end = resolve));
  client.subscribe<Ranking>(
    { query },
    {
      next: (result) => {
        results.push(result as Result<Ranking>);
        for (const watcher of [...watchers]) {
          if (results.length < watcher.count) continue;
          watchers.splice(watchers.indexOf(watcher), 1);
          watcher.reached();
        }
      },
      error: (error) => end({ error }),
      complete: () => end({ completed: true }),
    },
  );
  return {
    results,
    received: (count) => (results.length >= count ? Promise.resolve() : new Promise((reached) => watchers.push({ count, reached }))),
    ended,
  };
}

describe('subscriptions through the example (to the subgraph over WebSocket)', () => {
  test('a client over SSE and one over WebSocket each get the ranking, then the refresh', async () => {
    const authorization = `Bearer ${await token('reporting:read')}`;
    const sse = subscribeOverSse(RANKING, authorization);
    const ws = subscribeOverWebSocket(gatewaySocket(authorization), RANKING);
    await Promise.all([sse.received(1), ws.received(1)]);
    for (const client of [sse, ws]) {
      expect(client.results[0].errors).toBeUndefined();
      expect(client.results[0].data?.topArticles).toHaveLength(3);
    }

    // A refresh as the tables write it, with the leader changed.
    const key = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 3 })).key;
    const table = await live.store.table(key);
    if (table === undefined) throw new Error('no table');
    const [leader, values] = [...table.rows][0];
    await live.store.setTable({
      ...table,
      rows: new Map(table.rows).set(leader, { ...values, pageViewsTotal: 8_888_888 }),
      fetchedAt: live.clock.now(),
    });
    await Promise.all([sse.received(2), ws.received(2)]);
    // The gateway's socket to the subgraph carried the router secret on its upgrade (the token rides connectionParams).
    const upgrades = seen.filter((request) => request.upgrade);
    expect(upgrades.length).toBeGreaterThan(0);
    for (const upgrade of upgrades) expect(upgrade.headers['x-router-secret']).toBe(ROUTER_SECRET);
    for (const client of [sse, ws]) {
      expect(client.results[1].errors).toBeUndefined();
      expect(client.results[1].data?.topArticles?.[0]).toEqual({ value: 8_888_888, article: { url: leader } });
    }
  });

  test('a subscription out of the token scopes is refused at the edge, before the subgraph is asked', async () => {
    const before = live.recorder.dashboards.length;
    const ws = subscribeOverWebSocket(
      gatewaySocket(`Bearer ${await token('profile')}`),
      `subscription { topArticles(limit: 4) { value } }`,
    );
    const outcome = await Promise.race([ws.received(1).then(() => ws.results[0]), ws.ended]);
    expect(JSON.stringify(outcome)).toContain('UNAUTHORIZED_FIELD_OR_TYPE');
    expect(live.recorder.dashboards.length).toBe(before);
  });

  test('a subscription the subgraph refuses (a revenue metric without revenue:read) reaches the client with FORBIDDEN', async () => {
    const before = live.recorder.dashboards.length;
    // reporting:read lets it past the edge; the subgraph refuses the revenue metric itself, as a result, not a crash.
    const ws = subscribeOverWebSocket(
      gatewaySocket(`Bearer ${await token('reporting:read')}`),
      `subscription { topArticles(limit: 4, metric: REVENUE_TOTAL) { value } }`,
    );
    const outcome = await Promise.race([ws.received(1).then(() => ws.results[0]), ws.ended]);
    expect(JSON.stringify(outcome)).toContain('FORBIDDEN');
    expect(JSON.stringify(outcome)).not.toContain('INTERNAL_SERVER_ERROR');
    expect(live.recorder.dashboards.length).toBe(before);
  });
});
