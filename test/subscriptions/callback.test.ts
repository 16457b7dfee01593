/**
 * Apollo's HTTP callback protocol (callback/1.0), as Apollo Router's
 * callback mode uses it, with a simulated router: an HTTP server that
 * receives `check` (and heartbeats), `next` and `complete`. The subscription
 * starts with a POST carrying `extensions.subscription`; its numbers, each
 * refresh, the cap and the drain arrive at the callback URL.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SUBSCRIPTIONS_CONFIG } from '../../src/config';
import { TimeUnit } from '../../contract';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { AUDIENCE, callerAuth, ISSUER, ROUTER_SECRET, serveJwks, signingKey, signToken } from '../security/support';

jest.setTimeout(30_000);

interface CallbackMessage {
  kind: string;
  action: 'check' | 'next' | 'complete';
  id: string;
  verifier: string;
  payload?: { data?: { topArticles?: { value: number; article: { url: string } }[] } | null; errors?: unknown[] };
  errors?: { message: string; extensions?: { code?: string } }[];
}

interface SimulatedRouter {
  url: string;
  messages: CallbackMessage[];
  /** Resolves with the first message (arrived or to come) that matches. */
  message(matches: (message: CallbackMessage) => boolean): Promise<CallbackMessage>;
  close(): Promise<void>;
}

/** Answers as Apollo Router does: 204 with the protocol header for `check`, 200 for `next` and `complete`. */
async function startSimulatedRouter(): Promise<SimulatedRouter> {
  const messages: CallbackMessage[] = [];
  const waiting: { matches: (message: CallbackMessage) => boolean; found: (message: CallbackMessage) => void }[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const message = JSON.parse(body) as CallbackMessage;
      messages.push(message);
      for (const waiter of [...waiting]) {
        if (!waiter.matches(message)) continue;
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.found(message);
      }
      if (message.action === 'check') {
        response.writeHead(204, { 'subscription-protocol': 'callback/1.0' });
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    messages,
    message: (matches) => {
      const found = messages.find(matches);
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => waiting.push({ matches, found: resolve }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const TOP = `subscription { topArticles(limit: 3) { value article { url } } }`;

let live: LiveOverHttp | undefined;
let router: SimulatedRouter | undefined;

afterEach(async () => {
  await live?.close();
  await router?.close();
  live = undefined;
  router = undefined;
});

/** The router's subscription request: the operation with the callback extension. */
async function startCallbackSubscription(id: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(live!.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json;callbackSpec=1.0', ...headers },
    body: JSON.stringify({
      query: TOP,
      extensions: {
        subscription: { callbackUrl: `${router!.url}/${id}`, subscriptionId: id, verifier: `verifier-${id}`, heartbeatIntervalMs: 100 },
      },
    }),
  });
  return { status: response.status, body: await response.json() };
}

it('checks, sends the ranking and each change with `next`, heartbeats, and completes on shutdown', async () => {
  live = await startLiveOverHttp();
  router = await startSimulatedRouter();
  const started = await startCallbackSubscription('sub-1');
  expect(started).toEqual({ status: 200, body: { data: null } });
  expect(router.messages[0]).toMatchObject({ kind: 'subscription', action: 'check', id: 'sub-1', verifier: 'verifier-sub-1' });

  const first = await router.message((message) => message.action === 'next');
  expect(first.payload?.data?.topArticles).toHaveLength(3);
  expect(first.payload?.errors).toBeUndefined();
  // Heartbeats: more `check`s at the interval the router asked for.
  await router.message((message) => message.action === 'check' && router!.messages.indexOf(message) > 0);

  // A refresh that changed the leader reaches the router as one more `next`.
  const key = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 3 })).key;
  const table = await live.store.table(key);
  if (table === undefined) throw new Error('no table');
  const [leader, values] = [...table.rows][0];
  const rows = new Map(table.rows).set(leader, { ...values, pageViewsTotal: 9_999_999 });
  await live.store.setTable({ ...table, rows, fetchedAt: live.clock.now() });
  const changed = await router.message(
    (message) => message.action === 'next' && message.payload?.data?.topArticles?.[0].value === 9_999_999,
  );
  expect(changed.payload?.data?.topArticles?.[0].article.url).toBe(leader);
  expect(live.recorder.dashboards).toHaveLength(1);

  await live.server.stop();
  const complete = await router.message((message) => message.action === 'complete');
  expect(complete).toMatchObject({ id: 'sub-1', verifier: 'verifier-sub-1' });
  expect(complete.errors).toBeUndefined();
});

it('refuses a callback subscription over MAX_SUBSCRIPTIONS with `complete` and the error', async () => {
  live = await startLiveOverHttp({ subscriptions: { ...DEFAULT_SUBSCRIPTIONS_CONFIG, maxSubscriptions: 1 } });
  router = await startSimulatedRouter();
  await startCallbackSubscription('first');
  await router.message((message) => message.action === 'next' && message.id === 'first');
  await startCallbackSubscription('second');
  const refused = await router.message((message) => message.action === 'complete' && message.id === 'second');
  expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['SUBSCRIPTION_LIMIT']);
  expect(refused.errors?.[0].message).toContain('maximum of 1 subscriptions (MAX_SUBSCRIPTIONS)');
});

it('sends a field’s error with the code a query would get (the metric outside the plan), and keeps the subscription', async () => {
  live = await startLiveOverHttp();
  router = await startSimulatedRouter();
  const response = await fetch(live.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `subscription { topArticles(metric: REVENUE_TOTAL, limit: 3) { value } }`,
      extensions: {
        subscription: { callbackUrl: `${router.url}/plan`, subscriptionId: 'plan', verifier: 'verifier-plan', heartbeatIntervalMs: 0 },
      },
    }),
  });
  expect(response.status).toBe(200);
  const next = await router.message((message) => message.action === 'next' && message.id === 'plan');
  expect(next.payload?.data).toEqual({ topArticles: null });
  expect(next.payload?.errors).toEqual([
    expect.objectContaining({ path: ['topArticles'], extensions: expect.objectContaining({ code: 'UPSTREAM_METRIC_UNAVAILABLE' }) }),
  ]);
  expect(router.messages.some((message) => message.action === 'complete')).toBe(false);
});

it('refuses a callbackUrl outside SUBSCRIPTION_CALLBACK_URLS with 403 FORBIDDEN, sending it nothing and asking no table', async () => {
  live = await startLiveOverHttp({
    subscriptions: {
      ...DEFAULT_SUBSCRIPTIONS_CONFIG,
      callbackUrls: [{ kind: 'prefix', protocol: 'https:', host: 'router.internal:4000', path: '/callback' }],
    },
  });
  router = await startSimulatedRouter();
  const started = await startCallbackSubscription('ssrf');
  expect(started.status).toBe(403);
  const errors = (started.body as { errors: { message: string; extensions: { code: string } }[] }).errors;
  expect(errors.map((error) => error.extensions.code)).toEqual(['FORBIDDEN']);
  expect(errors[0].message).toContain(
    `(${new URL(router.url).origin}) is not an allowed callback destination (SUBSCRIPTION_CALLBACK_URLS)`,
  );
  expect(router.messages).toEqual([]);
  expect(live.recorder.dashboards).toHaveLength(0);
});

describe('under CALLER_AUTH (the callback protocol’s subscription is an ordinary POST through the HTTP gate)', () => {
  it('refuses the subscription without the router secret with 401, sending nothing to the callback', async () => {
    live = await startLiveOverHttp({ callerAuth: callerAuth(['router-secret']) });
    router = await startSimulatedRouter();
    const refused = await startCallbackSubscription('no-proof');
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain('missing the x-router-secret header');
    expect(router.messages).toEqual([]);
    expect(live.recorder.dashboards).toHaveLength(0);

    const admitted = await startCallbackSubscription('proof', { 'x-router-secret': ROUTER_SECRET });
    expect(admitted).toEqual({ status: 200, body: { data: null } });
    const next = await router.message((message) => message.action === 'next' && message.id === 'proof');
    expect(next.payload?.data?.topArticles).toHaveLength(3);
  });

  it('refuses a caller without reporting:read with FORBIDDEN at subscribe time, before any table ask', async () => {
    const key = await signingKey('key-1');
    const jwks = await serveJwks([key]);
    try {
      live = await startLiveOverHttp({ callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }) });
      router = await startSimulatedRouter();
      const token = await signToken(key, { claims: { scope: 'profile' } });
      await startCallbackSubscription('no-scope', { authorization: `Bearer ${token}` });
      const refused = await router.message((message) => message.action === 'complete' && message.id === 'no-scope');
      expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
      expect(refused.errors?.[0].message).toMatch(/Subscription.topArticles is not readable: .*reporting:read/);
      expect(router.messages.some((message) => message.action === 'next')).toBe(false);
      expect(live.recorder.dashboards).toHaveLength(0);
    } finally {
      await live?.close();
      live = undefined;
      await jwks.close();
    }
  });
});
