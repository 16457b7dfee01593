/**
 * Sockets end with their token (issue 34 item 6), over a real graphql-ws
 * socket: a connection admitted with a short-lived JWT is closed with 4403
 * once the token's `exp` passes (within 5 s of it, never before), the close
 * naming the reason; the client then reconnects with a fresh token, as the
 * docs show (`connectionParams` as a function). The test awaits the close
 * event; its deadline only turns a socket that stays open into a failure.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startLiveOverHttp, type LiveOverHttp } from '../subscriptions/support/liveOverHttp';
import { subscribe, type Subscriber } from '../subscriptions/support/subscriber';
import { AUDIENCE, callerAuth, ISSUER, serveJwks, signingKey, tokenOfClaims, type JwksServer, type SigningKey } from './support';

jest.setTimeout(30_000);

const TOP = 'subscription { topArticles(limit: 3) { value } }';
/** The token lives this long: long enough to subscribe, short enough for a test. */
const LIFETIME_SECONDS = 3;
const CLOSE_WITHIN_MS = 5_000;

let jwks: JwksServer;
let key: SigningKey;
let live: LiveOverHttp;
const subscribers: Subscriber<unknown>[] = [];

beforeAll(async () => {
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
  live = await startLiveOverHttp({ callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }) });
});

afterAll(async () => {
  await Promise.all(subscribers.map((subscriber) => subscriber.dispose()));
  await live?.close();
  await jwks?.close();
});

/** A token expiring `LIFETIME_SECONDS` from now, and its `exp` in milliseconds. */
async function shortLivedToken(): Promise<{ token: string; expMs: number }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + LIFETIME_SECONDS;
  return { token: await tokenOfClaims(key, { scope: 'reporting:read', iat: now, exp }), expMs: exp * 1000 };
}

/** The close event, or a failure once `deadline` (ms since the epoch) passes with the socket still open. */
function closedBy(subscriber: Subscriber<unknown>, deadline: number): Promise<{ code: number; reason: string; at: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the socket was still open 5 s after its token expired')), deadline - Date.now());
    void subscriber.closed.then((event) => {
      clearTimeout(timer);
      resolve({ ...event, at: Date.now() });
    });
  });
}

test('a socket admitted with a JWT is closed with 4403 within 5 s of the token’s exp, naming the reason', async () => {
  const { token, expMs } = await shortLivedToken();
  const client = connectWith(() => ({ authorization: `Bearer ${token}` }), 0);
  const subscriber = subscribe(live.wsUrl, TOP, {}, client);
  subscribers.push(subscriber);
  const [first] = await subscriber.received(1);
  expect(first.errors).toBeUndefined();
  const closed = await closedBy(subscriber, expMs + CLOSE_WITHIN_MS);
  expect(closed.code).toBe(4403);
  expect(closed.reason).toMatch(/token has expired/);
  expect(closed.at).toBeGreaterThanOrEqual(expMs);
  expect(closed.at).toBeLessThanOrEqual(expMs + CLOSE_WITHIN_MS);
});

test('a client whose connectionParams is a function reconnects with a fresh token and is served again', async () => {
  const tokens: { token: string; expMs: number }[] = [];
  const client = connectWith(async () => {
    const fresh = await shortLivedToken();
    tokens.push(fresh);
    return { authorization: `Bearer ${fresh.token}` };
  }, 5);
  let connections = 0;
  const reconnected = new Promise<void>((resolve) =>
    client.on('connected', () => {
      connections += 1;
      if (connections === 2) resolve();
    }),
  );
  const subscriber = subscribe(live.wsUrl, TOP, {}, client);
  subscribers.push(subscriber);
  await subscriber.received(1);
  await reconnected;
  expect(tokens.length).toBeGreaterThanOrEqual(2);
  expect(tokens[1].token).not.toBe(tokens[0].token);
  // The subscription resumed on the new socket: graphql-ws subscribes again once connected.
  const again = await subscriber.received(2);
  expect(again[1].errors).toBeUndefined();
});

/** A graphql-ws client that asks `params` for its connection params on each connection, retrying `retries` times. */
function connectWith(params: () => Record<string, unknown> | Promise<Record<string, unknown>>, retries: number): Client {
  return createClient({
    url: live.wsUrl,
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: retries,
    retryWait: async () => undefined,
    // graphql-ws retries only closes it deems transient; a 4403 for an expired token is one the client means to retry.
    shouldRetry: () => true,
    connectionParams: params,
    onNonLazyError: () => undefined,
  });
}
