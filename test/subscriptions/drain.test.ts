/**
 * Shutdown with subscribers on real WebSockets: while readiness is 503 (the
 * shutdown delay) new sockets are refused and open ones keep their numbers;
 * then every socket is closed with 1001 Going Away (a close code, not a
 * dropped connection), so clients reconnect to another replica.
 */
import WebSocket from 'ws';
import { registryValue } from './support/registryValue';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { subscribe } from './support/subscriber';

jest.setTimeout(30_000);

const TOP = `subscription { topArticles(limit: 3) { rank value } }`;

let live: LiveOverHttp | undefined;

afterEach(async () => {
  await live?.close();
  live = undefined;
});

it('refuses new sockets during the shutdown delay, then closes every open one with 1001 Going Away', async () => {
  let endDelay: () => void = () => undefined;
  let held = false;
  let delaying: () => void = () => undefined;
  const inDelay = new Promise<void>((resolve) => (delaying = resolve));
  live = await startLiveOverHttp(
    { shutdownDelaySeconds: 1 },
    {},
    {
      // The first stop's delay is held by the test; a later one (afterEach) passes at once.
      sleep: () => {
        if (held) return Promise.resolve();
        held = true;
        delaying();
        return new Promise<void>((resolve) => (endDelay = resolve));
      },
    },
  );
  const subscribers = [subscribe(live.wsUrl, TOP), subscribe(live.wsUrl, TOP)];
  await Promise.all(subscribers.map((subscriber) => subscriber.received(1)));

  const stopped = live.server.stop();
  await inDelay;
  const refusal = await upgradeRefusal(live.wsUrl);
  expect(refusal).toBe(503);
  // Still open while the load balancers move away.
  expect(await registryValue(live.metrics.registry, 'subgraph_subscriptions_open', { field: 'topArticles' })).toBe(2);

  endDelay();
  await stopped;
  const closes = await Promise.all(subscribers.map((subscriber) => subscriber.closed));
  expect(closes).toEqual([
    { code: 1001, reason: 'Going away' },
    { code: 1001, reason: 'Going away' },
  ]);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscriptions_open', { field: 'topArticles' })).toBe(0);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscribers_dropped_total', { reason: 'shutdown' })).toBe(2);
});

/** The HTTP status a WebSocket upgrade was refused with. */
function upgradeRefusal(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.on('error', () => undefined);
  });
}
