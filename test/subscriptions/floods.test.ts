/**
 * Floods bounded and visible (issue 35 item 5), over real sockets, awaiting
 * events: a consumer that stops reading is dropped with 1013 and counted
 * although the kernel's buffers take all it was sent (the ping it leaves
 * unanswered tells); MAX_SOCKETS caps open sockets; an acknowledged socket
 * that carries no subscription is closed after SUBSCRIPTION_IDLE_TIMEOUT_SECONDS;
 * a frame over the 256 KiB cap is one log line through the logger, no stack
 * trace on stderr; a flood of subscribe/complete pairs is collected once it is over.
 */
import WebSocket from 'ws';
import { DEFAULT_SUBSCRIPTIONS_CONFIG, type SubscriptionsConfig } from '../../src/config';
import { FLOOD_ENDED_SUBSCRIPTIONS, type CollectGarbage } from '../../src/web/subscriptions/reclaimAfterFlood';
import type { Logger } from '../../src/observability/logger';
import { registryValue } from './support/registryValue';
import { openRawSubscriber } from './support/rawSubscriber';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { connect, subscribe, type Subscriber } from './support/subscriber';

jest.setTimeout(60_000);

const TOP = `subscription { topArticles(limit: 3) { rank value article { url } } }`;

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that records each line and tells the watchers waiting for one. */
function recordingLogger() {
  const lines: LogLine[] = [];
  const watchers: { matches: (line: LogLine) => boolean; found: (line: LogLine) => void }[] = [];
  const at =
    (level: string) =>
    (fields: unknown, message?: string): void => {
      const line =
        typeof fields === 'string'
          ? { level, fields: {}, message: fields }
          : { level, fields: fields as Record<string, unknown>, message: message ?? '' };
      lines.push(line);
      for (const watcher of [...watchers]) {
        if (!watcher.matches(line)) continue;
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.found(line);
      }
    };
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as Pick<
    Logger,
    'debug' | 'info' | 'warn' | 'error'
  >;
  return {
    logger,
    lines,
    line: (message: string) =>
      new Promise<LogLine>((found) => {
        const seen = lines.find((line) => line.message === message);
        if (seen !== undefined) found(seen);
        else watchers.push({ matches: (line) => line.message === message, found });
      }),
  };
}

let live: LiveOverHttp | undefined;
const subscribers: Subscriber<unknown>[] = [];

afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
  await live?.close();
  live = undefined;
  jest.restoreAllMocks();
});

async function startWith(subscriptions: Partial<SubscriptionsConfig>, collectGarbage?: CollectGarbage) {
  const log = recordingLogger();
  live = await startLiveOverHttp(
    { subscriptions: { ...DEFAULT_SUBSCRIPTIONS_CONFIG, ...subscriptions } },
    { logger: log.logger, ...(collectGarbage === undefined ? {} : { collectGarbage }) },
  );
  return { live, log };
}

function openSocket(url: string): { socket: WebSocket; closed: Promise<{ code: number; reason: string }>; acked: Promise<void> } {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const acked = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') resolve();
    });
  });
  socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
  return { socket, closed, acked };
}

it('drops a consumer that stops reading with 1013 and counts it, however much the kernel buffers, before any keepalive kills it', async () => {
  const { live, log } = await startWith({ keepAliveMs: 1_000 });
  const healthy = subscribe(live.wsUrl, TOP);
  subscribers.push(healthy);
  await healthy.received(1);
  // Nothing more is sent to it: its unsent bytes stay near zero, so only the ping it leaves unanswered can tell.
  const paused = await openRawSubscriber(live.wsUrl, [{ query: TOP, variables: {} }]);
  paused.pause();

  const dropped = await log.line('subscriber dropped: slow consumer');
  expect(dropped.level).toBe('warn');
  expect(dropped.fields).toMatchObject({ unansweredPing: true });
  expect(await registryValue(live.metrics.registry, 'subgraph_subscribers_dropped_total', { reason: 'slow_consumer' })).toBe(1);
  paused.resume();
  expect(await paused.closed).toEqual({ code: 1013, reason: 'Slow consumer: stopped reading' });
  // The healthy subscriber, answering every ping, stays.
  expect(healthy.results.length).toBeGreaterThanOrEqual(1);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscriptions_open', { field: 'topArticles' })).toBe(1);
});

it('refuses a socket over MAX_SOCKETS with 503 and a JSON body naming the cap, and takes one again once a socket closed', async () => {
  const { live } = await startWith({ maxSockets: 2 });
  const first = openSocket(live.wsUrl);
  const second = openSocket(live.wsUrl);
  await Promise.all([first.acked, second.acked]);

  const refusal = await new Promise<{ status: number; body: string }>((resolve) => {
    const third = new WebSocket(live.wsUrl, 'graphql-transport-ws');
    third.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    third.on('error', () => undefined);
  });
  expect(refusal.status).toBe(503);
  expect(JSON.parse(refusal.body)).toEqual({
    errors: [
      {
        message: 'This replica carries its maximum of 2 open sockets (MAX_SOCKETS): connect again to reach another replica',
        extensions: { code: 'SERVICE_UNAVAILABLE' },
      },
    ],
  });
  expect(await registryValue(live.metrics.registry, 'subgraph_subscription_sockets_refused_total', { reason: 'max_sockets' })).toBe(1);

  first.socket.close();
  await first.closed;
  const again = openSocket(live.wsUrl);
  await again.acked;
  again.socket.close();
  second.socket.close();
  await Promise.all([again.closed, second.closed]);
});

it('closes an acknowledged socket that carries no subscription after the idle timeout, never one that carries one', async () => {
  const { live } = await startWith({ idleTimeoutMs: 300 });
  const busy = subscribe(live.wsUrl, TOP);
  subscribers.push(busy);
  await busy.received(1);
  const idle = openSocket(live.wsUrl);
  await idle.acked;

  expect(await idle.closed).toEqual({ code: 1000, reason: 'Idle: no subscription for 0.3 s (SUBSCRIPTION_IDLE_TIMEOUT_SECONDS)' });
  expect(await registryValue(live.metrics.registry, 'subgraph_subscription_sockets_closed_total', { reason: 'idle' })).toBe(1);
  // The busy socket was open longer than that: it carries a subscription, so it stays.
  expect(busy.results).toHaveLength(1);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscriptions_open', { field: 'topArticles' })).toBe(1);

  // Once its subscription completes, the busy socket is idle too.
  const socketClosed = new Promise<{ code: number }>((resolve) => busy.client.on('closed', (event) => resolve(event as { code: number })));
  busy.unsubscribe();
  expect((await socketClosed).code).toBe(1000);
});

it('logs a frame over the 256 KiB cap once, through the logger, without a stack trace, and closes with 1009', async () => {
  const consoleError = jest.spyOn(console, 'error');
  const { live, log } = await startWith({});
  const client = connect(live.wsUrl);
  const big = openSocket(live.wsUrl);
  await big.acked;
  big.socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `# ${'x'.repeat(300 * 1024)}\n${TOP}` } }));

  expect((await big.closed).code).toBe(1009);
  const line = await log.line('subscription socket: message refused');
  expect(line.level).toBe('warn');
  expect(line.fields).toEqual({ code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', problem: 'Max payload size exceeded', maxBytes: 256 * 1024 });
  expect(JSON.stringify(log.lines)).not.toContain('    at ');
  expect(consoleError).not.toHaveBeenCalled();
  await client.dispose();
});

it('asks V8 for one collection once a flood of subscribe/complete pairs is over, counting every subscription it ended', async () => {
  const collections: number[] = [];
  let collected!: () => void;
  const firstCollection = new Promise<void>((resolve) => (collected = resolve));
  const { live, log } = await startWith({}, async () => {
    collections.push(collections.length + 1);
    collected();
  });
  // Within each socket's burst of starts (MAX_SUBSCRIPTIONS_PER_CONNECTION): every pair goes through the pipeline or is abandoned.
  const perSocket = DEFAULT_SUBSCRIPTIONS_CONFIG.maxPerConnection;
  const sockets = Array.from({ length: Math.ceil(FLOOD_ENDED_SUBSCRIPTIONS / perSocket) }, () => openSocket(live.wsUrl));
  await Promise.all(sockets.map((socket) => socket.acked));
  sockets.forEach(({ socket }, index) => {
    for (let pair = 0; pair < perSocket; pair += 1) {
      const id = `${index}-${pair}`;
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: TOP } }));
      socket.send(JSON.stringify({ id, type: 'complete' }));
    }
  });
  await firstCollection;
  const line = await log.line('a flood of subscriptions is over: collecting its garbage');
  expect(line.fields).toEqual({ ended: sockets.length * perSocket });
  expect(collections).toEqual([1]);
  for (const { socket } of sockets) socket.close();
});
