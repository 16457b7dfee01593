/**
 * A subscribe flood costs little and leaves the replica responsive (issue 35
 * item 5), over real sockets, ordering asserted by events: ws handed every
 * frame of one read to graphql-ws at once, and each started Apollo's
 * pipeline. Now a socket's frames are read one a turn of the event loop and
 * starts wait their turn, a few per turn, so an HTTP request that arrived
 * meanwhile is answered between them; a start
 * completed before its turn never reaches the pipeline; and a socket
 * starting more than SUBSCRIPTION_STARTS_PER_SECOND (past a burst of
 * MAX_SUBSCRIPTIONS_PER_CONNECTION) gets refusals, before the pipeline.
 *
 * Client and server share this process, so frames sent in one tick are all
 * in the kernel before the server reads: they arrive as one read, as a
 * flood's frames do.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { DEFAULT_SUBSCRIPTIONS_CONFIG, type SubscriptionsConfig } from '../../src/config';
import { SocketSubscriptions } from '../../src/graphql/subscriptions/socketSubscriptions';
import { StartRate } from '../../src/web/subscriptions/startRate';
import { IN_FLIGHT } from '../../src/web/subscriptions/startTurns';
import { registryValue } from './support/registryValue';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';

jest.setTimeout(60_000);

const TOP = `subscription { topArticles(limit: 3) { rank value } }`;

let live: LiveOverHttp | undefined;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await live?.close();
  live = undefined;
  jest.restoreAllMocks();
});

async function startWith(subscriptions: Partial<SubscriptionsConfig>): Promise<LiveOverHttp> {
  live = await startLiveOverHttp({ subscriptions: { ...DEFAULT_SUBSCRIPTIONS_CONFIG, ...subscriptions } });
  return live;
}

interface Message {
  type: string;
  id?: string;
  payload?: { errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** An acknowledged graphql-transport-ws socket, by hand (so frames can be sent as no client library would), and its messages. */
async function ackedSocket(
  url: string,
): Promise<{ socket: WebSocket; messages: Message[]; message(matches: (m: Message) => boolean): Promise<Message> }> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  sockets.push(socket);
  const messages: Message[] = [];
  const watchers: { matches: (m: Message) => boolean; found: (m: Message) => void }[] = [];
  socket.on('message', (data) => {
    const parsed = JSON.parse(String(data)) as Message;
    messages.push(parsed);
    for (const watcher of [...watchers]) {
      if (!watcher.matches(parsed)) continue;
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.found(parsed);
    }
  });
  const message = (matches: (m: Message) => boolean) =>
    new Promise<Message>((found) => {
      const seen = messages.find(matches);
      if (seen !== undefined) found(seen);
      else watchers.push({ matches, found });
    });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await message((m) => m.type === 'connection_ack');
  return { socket, messages, message };
}

const subscribeFrame = (id: string) => JSON.stringify({ id, type: 'subscribe', payload: { query: TOP } });
const completeFrame = (id: string) => JSON.stringify({ id, type: 'complete' });

/** A plain TCP connection to the HTTP server, accepted by it (its `connection` event), to write a request on at a chosen moment. */
async function acceptedConnection(live: LiveOverHttp): Promise<Socket> {
  const accepted = new Promise((resolve) => live.server.httpServer.once('connection', resolve));
  const url = new URL(live.graphqlUrl);
  const socket = tcpConnect(Number(url.port), url.hostname);
  await Promise.all([accepted, new Promise((resolve) => socket.once('connect', resolve))]);
  return socket;
}

it('answers an HTTP request that arrives while a socket floods subscribe frames between its frames and starts, not after all of them', async () => {
  const live = await startWith({ maxPerConnection: 500 });
  const count = 200;
  const { socket } = await ackedSocket(live.wsUrl);
  const http = await acceptedConnection(live);
  const response = new Promise<string>((resolve) => {
    let text = '';
    http.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\r\n\r\n')) resolve(text);
    });
  });

  // The frames read and the starts so far when the server reads the health request (its `request` event), and when all have started.
  let read = 0;
  let readAtRequest: number | undefined;
  let started = 0;
  let startedAtRequest: number | undefined;
  let allStarted: () => void = () => undefined;
  const everyStart = new Promise<void>((resolve) => (allStarted = resolve));
  live.server.httpServer.on('request', (request: { url?: string }) => {
    if (request.url !== '/health/live') return;
    readAtRequest = read;
    startedAtRequest = started;
  });
  const take = StartRate.prototype.take;
  // Every subscribe frame read is counted by the socket's start rate, before it waits for its turn.
  jest.spyOn(StartRate.prototype, 'take').mockImplementation(function (this: StartRate, ...args) {
    read += 1;
    return take.apply(this, args);
  });
  const original = SocketSubscriptions.prototype.subscribe;
  jest.spyOn(SocketSubscriptions.prototype, 'subscribe').mockImplementation(function (this: SocketSubscriptions, ...args) {
    started += 1;
    // The first start: the request goes out now, so it is in the kernel before the server's next read.
    if (started === 1) http.write('GET /health/live HTTP/1.1\r\nHost: subgraph\r\nConnection: close\r\n\r\n');
    if (started === count) allStarted();
    return original.apply(this, args);
  });

  for (let id = 0; id < count; id += 1) socket.send(subscribeFrame(String(id)));

  expect(await response).toMatch(/^HTTP\/1\.1 200 /);
  await everyStart;
  // Before: all 200 started in the one read's microtasks, and the request was read after them (200).
  expect(startedAtRequest).toBeGreaterThanOrEqual(1);
  expect(startedAtRequest).toBeLessThan(count);
  // Before: ws handed all 200 frames of the read to graphql-ws at once, before the request was read (200).
  expect(readAtRequest).toBeGreaterThanOrEqual(1);
  expect(readAtRequest).toBeLessThan(count);
  http.destroy();
});

it('never starts the pipeline for a subscription completed before its turn, and counts it as abandoned', async () => {
  const live = await startWith({});
  const pairs = 50;
  const holder = await ackedSocket(live.wsUrl);
  const flooder = await ackedSocket(live.wsUrl);

  // The first IN_FLIGHT starts hold every turn until released, so the flood's starts wait while all its frames are read.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held: () => void = () => undefined;
  const allHeld = new Promise<void>((resolve) => (held = resolve));
  const original = SocketSubscriptions.prototype.subscribe;
  const pipeline = jest.spyOn(SocketSubscriptions.prototype, 'subscribe').mockImplementation(async function (
    this: SocketSubscriptions,
    ...args
  ) {
    if (pipeline.mock.calls.length <= IN_FLIGHT) {
      if (pipeline.mock.calls.length === IN_FLIGHT) held();
      await released;
    }
    return original.apply(this, args);
  });
  // Every subscribe frame read is counted by the socket's start rate; the flood's last frame is read after every complete before it.
  let read = 0;
  let readAll: () => void = () => undefined;
  const everyFrameRead = new Promise<void>((resolve) => (readAll = resolve));
  const take = StartRate.prototype.take;
  jest.spyOn(StartRate.prototype, 'take').mockImplementation(function (this: StartRate, ...args) {
    read += 1;
    if (read === IN_FLIGHT + pairs + 1) readAll();
    return take.apply(this, args);
  });

  for (let id = 0; id < IN_FLIGHT; id += 1) holder.socket.send(subscribeFrame(`hold-${id}`));
  await allHeld;
  for (let id = 0; id < pairs; id += 1) {
    flooder.socket.send(subscribeFrame(String(id)));
    flooder.socket.send(completeFrame(String(id)));
  }
  // Starts take their turns in order: once the last one has its numbers, every earlier one had its turn.
  flooder.socket.send(subscribeFrame('last'));
  await everyFrameRead;
  release();
  const last = await flooder.message((m) => m.type === 'next' && m.id === 'last');

  expect(last.payload?.errors).toBeUndefined();
  // Before: 50 more starts, each through Apollo's pipeline, the feed opened and closed for nothing.
  expect(pipeline).toHaveBeenCalledTimes(IN_FLIGHT + 1);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscription_starts_total', { outcome: 'abandoned' })).toBe(pairs);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscription_starts_total', { outcome: 'pipeline' })).toBe(IN_FLIGHT + 1);
});

it('refuses starts past SUBSCRIPTION_STARTS_PER_SECOND, after a burst of MAX_SUBSCRIPTIONS_PER_CONNECTION, with a result naming it, before the pipeline', async () => {
  const live = await startWith({ maxPerConnection: 3, startsPerSecond: 1 });
  const { socket, message } = await ackedSocket(live.wsUrl);
  const pipeline = jest.spyOn(SocketSubscriptions.prototype, 'subscribe');

  // Three starts (the burst), ended at once so the per-connection cap stays clear, then two more in the same read.
  for (const id of ['a', 'b', 'c']) socket.send(subscribeFrame(id));
  for (const id of ['a', 'b', 'c']) socket.send(completeFrame(id));
  socket.send(subscribeFrame('d'));
  socket.send(subscribeFrame('e'));

  for (const id of ['d', 'e']) {
    const refused = await message((m) => m.type === 'next' && m.id === id);
    expect(refused.payload?.errors).toEqual([
      {
        message:
          'Subscription refused: this connection started more than 1 subscription a second after a burst of 3 (SUBSCRIPTION_STARTS_PER_SECOND); try again later',
        extensions: { code: 'SUBSCRIPTION_LIMIT', limit: 'SUBSCRIPTION_STARTS_PER_SECOND', retryAfter: expect.any(Number) },
      },
    ]);
    await message((m) => m.type === 'complete' && m.id === id);
  }
  // Only the burst's three (each read in a turn of its own, and started before its complete was read): d and e never reach it.
  expect(pipeline).toHaveBeenCalledTimes(3);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscription_starts_total', { outcome: 'refused_rate' })).toBe(2);
});
