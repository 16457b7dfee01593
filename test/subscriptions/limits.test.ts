/**
 * What a subscription may be, over real WebSockets: the same validation and
 * limits as an HTTP operation (through Apollo's pipeline), argument checks,
 * the caps per replica and per connection with a clear error, and an
 * operation log line per subscription start and end.
 */
import WebSocket from 'ws';
import { DEFAULT_LIMITS, DEFAULT_SUBSCRIPTIONS_CONFIG } from '../../src/config';
import type { Logger } from '../../src/observability/logger';
import { OPEN_CALLER } from '../../src/auth/callers/caller';
import { registryValue } from './support/registryValue';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { connect, subscribe, type Subscriber } from './support/subscriber';

jest.setTimeout(30_000);

const TOP = `subscription { topArticles(limit: 3) { rank value fetchedAt } }`;

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that records every line and tells `onLine` of each (so a test awaits a line instead of polling for it). */
function recordingLogger(
  lines: LogLine[],
  onLine: (line: LogLine) => void = () => undefined,
): Pick<Logger, 'debug' | 'info' | 'warn' | 'error'> {
  const at =
    (level: string) =>
    (fields: unknown, message?: string): void => {
      const line =
        typeof fields === 'string'
          ? { level, fields: {}, message: fields }
          : { level, fields: fields as Record<string, unknown>, message: message ?? '' };
      lines.push(line);
      onLine(line);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as Pick<
    Logger,
    'debug' | 'info' | 'warn' | 'error'
  >;
}

let live: LiveOverHttp | undefined;
const subscribers: Subscriber<unknown>[] = [];

afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
  await live?.close();
  live = undefined;
});

function track<T>(subscriber: Subscriber<T>): Subscriber<T> {
  subscribers.push(subscriber as Subscriber<unknown>);
  return subscriber;
}

/** A refused subscription gets one result carrying the errors, then completes (docs/subscriptions.md): its codes. */
async function refusalCodes(subscriber: Subscriber<unknown>): Promise<unknown[]> {
  expect(await subscriber.ended).toEqual({ completed: true });
  expect(subscriber.results).toHaveLength(1);
  expect(subscriber.results[0].data ?? null).toBeNull();
  return (subscriber.results[0].errors ?? []).map((error) => error.extensions?.code);
}

it('applies the operation limits of Apollo’s pipeline and refuses queries and bad arguments over the socket, before any vendor query', async () => {
  live = await startLiveOverHttp({ limits: { ...DEFAULT_LIMITS, maxAliases: 1 } });
  const aliases = track(subscribe(live.wsUrl, `subscription { topArticles { a: rank b: rank c: value } }`));
  const query = track(subscribe(live.wsUrl, `{ topArticles(limit: 1) { rank } }`));
  const unknown = track(subscribe(live.wsUrl, `subscription { nope }`));
  const limit = track(subscribe(live.wsUrl, `subscription { topArticles(limit: 500) { rank } }`));
  const tooMany = track(
    subscribe(live.wsUrl, `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews } }`, {
      urls: Array.from({ length: 51 }, (_, index) => `https://news.example/${index}`),
    }),
  );
  expect(await refusalCodes(aliases)).toEqual(['MAX_ALIASES_LIMIT']);
  expect(await refusalCodes(query)).toEqual(['BAD_USER_INPUT']);
  expect(await refusalCodes(unknown)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  expect(await refusalCodes(limit)).toEqual(['BAD_USER_INPUT']);
  expect(await refusalCodes(tooMany)).toEqual(['BAD_USER_INPUT']);
  expect(JSON.stringify(tooMany.results)).toContain('must hold 1 to 50 urls (REPORTING_MAX_ROWS), got 51');
  expect(live.recorder.dashboards).toHaveLength(0);
});

it('refuses a subscription over MAX_SUBSCRIPTIONS_PER_CONNECTION on that connection only, and over MAX_SUBSCRIPTIONS on any', async () => {
  live = await startLiveOverHttp({ subscriptions: { ...DEFAULT_SUBSCRIPTIONS_CONFIG, maxSubscriptions: 3, maxPerConnection: 2 } });
  const client = connect(live.wsUrl);
  const [one, two, three] = [1, 2, 3].map(() => track(subscribe(live!.wsUrl, TOP, {}, client)));
  await Promise.all([one.received(1), two.received(1)]);
  expect(await refusalCodes(three)).toEqual(['SUBSCRIPTION_LIMIT']);
  expect(JSON.stringify(three.results)).toContain('maximum of 2 subscriptions (MAX_SUBSCRIPTIONS_PER_CONNECTION)');

  const other = connect(live.wsUrl);
  const four = track(subscribe(live.wsUrl, TOP, {}, other));
  await four.received(1);
  const five = track(subscribe(live.wsUrl, TOP, {}, other));
  expect(await refusalCodes(five)).toEqual(['SUBSCRIPTION_LIMIT']);
  expect(JSON.stringify(five.results)).toContain('maximum of 3 subscriptions (MAX_SUBSCRIPTIONS)');
  // The refused ones never opened; the others still flow.
  expect(await registryValue(live.metrics.registry, 'subgraph_subscriptions_open', { field: 'topArticles' })).toBe(3);
  one.unsubscribe();
  const six = track(subscribe(live.wsUrl, TOP, {}, other));
  expect((await six.received(1))[0].errors).toBeUndefined();
});

it('writes an operation log line when each subscription starts and ends', async () => {
  const lines: LogLine[] = [];
  let endedLine: (line: LogLine) => void = () => undefined;
  // The server writes it on its own after the client's close: no message reaches the test, the log line is the event.
  const endedLogged = new Promise<LogLine>((resolve) => (endedLine = resolve));
  live = await startLiveOverHttp(
    {},
    { logger: recordingLogger(lines, (line) => (line.message === 'subscription ended' ? endedLine(line) : undefined)) },
  );
  const subscriber = track(subscribe(live.wsUrl, TOP));
  await subscriber.received(1);
  const started = lines.find((line) => line.message === 'subscription started');
  expect(started?.fields).toMatchObject({ field: 'topArticles' });
  // Apollo's own operation line too: the subscribe message went through its pipeline.
  expect(lines.some((line) => line.message === 'graphql operation' && line.fields.operationType === 'subscription')).toBe(true);
  await subscriber.dispose();
  subscribers.splice(0);
  const ended = await endedLogged;
  expect(ended?.fields).toMatchObject({ subscription: started?.fields.subscription, field: 'topArticles', events: 1 });
});

it('lets the subscription gate refuse an upgrade (its HTTP status) or a connection (4403), and admit the others', async () => {
  live = await startLiveOverHttp(
    {},
    {
      subscriptionGate: {
        admitUpgrade: async (request) =>
          request.headers['x-refuse'] === undefined ? undefined : { status: 401, code: 'UNAUTHENTICATED', message: 'no proof' },
        admitConnection: async (_request, params) => (params?.token === 'proof' ? { admitted: OPEN_CALLER } : { refused: 'Forbidden' }),
      },
    },
  );
  const refusedUpgrade = await new Promise<number>((resolve) => {
    const socket = new WebSocket(live!.wsUrl, 'graphql-transport-ws', { headers: { 'x-refuse': '1' } });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('error', () => undefined);
  });
  expect(refusedUpgrade).toBe(401);
  const refused = track(subscribe(live.wsUrl, TOP, {}, connect(live.wsUrl, { token: 'wrong' })));
  expect(await refused.closed).toEqual({ code: 4403, reason: 'Forbidden' });
  const admitted = track(subscribe(live.wsUrl, TOP, {}, connect(live.wsUrl, { token: 'proof' })));
  expect((await admitted.received(1))[0].errors).toBeUndefined();
});
