import { Agent } from 'undici';
import { createAgent } from '../../src/upstream/transport/agent';
import { backoffDelayMs, type BackoffOptions } from '../../src/upstream/transport/backoff';
import { DeadlineTicks } from '../../src/upstream/transport/deadlines';
import type { HttpClient, JsonRequest } from '../../src/upstream/transport/httpClient';
import { retryingClient as createHttpClient } from '../support/httpPath';
import { buildUrl } from '../../src/upstream/transport/url';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { inSequence, resetConnection, sendJson, startFakeUpstream, useFakeUpstream } from '../support/fakeUpstream';

const upstream = useFakeUpstream();
let agent: Agent;
let http: HttpClient;
let warnings: { details: object; message: string }[];

/** Short pauses so the suite stays fast; the top of each step, so delays are known exactly. */
const QUICK_BACKOFF: BackoffOptions = { retries: 2, baseDelayMs: 20, maxDelayMs: 1_000, random: () => 1 };

beforeEach(() => {
  warnings = [];
  agent = createAgent({ connections: 4 });
  http = createHttpClient({
    dispatcher: agent,
    timeoutMs: 2_000,
    logger: { warn: (details, message) => warnings.push({ details, message }) },
    now: () => Date.parse('2026-11-21T10:00:00Z'),
    backoff: QUICK_BACKOFF,
  });
});

afterEach(async () => {
  await agent.destroy();
});

function get(query: Record<string, string> = {}): JsonRequest {
  return { service: 'recommender', endpoint: '/thing', url: buildUrl(upstream.url, '/thing', query), method: 'GET' };
}

function post(body: unknown, idempotent?: boolean): JsonRequest {
  return { service: 'reporting', endpoint: '/thing', url: buildUrl(upstream.url, '/thing'), method: 'POST', body, idempotent };
}

async function failure(request: JsonRequest, client: HttpClient = http): Promise<UpstreamError> {
  const error = await client.requestJson(request).then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

describe('successful answers', () => {
  test('GET sends the query and accept header and parses JSON with a charset and extra fields', async () => {
    upstream.handle((_request, response) => sendJson(response, 200, { a: 1, extra: ['x'] }));

    const json = await http.requestJson(get({ id: 'IL_1', canonical_url: 'https://x.example/a?b=1&c=2' }));

    expect(json).toEqual({ a: 1, extra: ['x'] });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0].method).toBe('GET');
    expect(upstream.requests[0].query.get('canonical_url')).toBe('https://x.example/a?b=1&c=2');
    expect(upstream.requests[0].headers.accept).toBe('application/json');
  });

  test('POST sends the body as JSON with its content type and the given headers', async () => {
    upstream.handle((_request, response) => sendJson(response, 200, [1, 2]));

    const json = await http.requestJson({ ...post({ metrics: ['pageViewsTotal'] }), headers: { authorization: 'Bearer t' } });

    expect(json).toEqual([1, 2]);
    expect(upstream.requests[0].headers['content-type']).toBe('application/json');
    expect(upstream.requests[0].headers.authorization).toBe('Bearer t');
    expect(JSON.parse(upstream.requests[0].body)).toEqual({ metrics: ['pageViewsTotal'] });
  });

  test('a 200 whose body is not JSON is a bad_response', async () => {
    upstream.handle((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));

    const error = await failure(get());

    expect(error).toMatchObject({ kind: 'bad_response', status: 200, service: 'recommender', endpoint: '/thing' });
  });
});

describe('error answers', () => {
  test('the upstream msg and field errors are kept; extra fields are ignored', async () => {
    upstream.handle((_request, response) =>
      sendJson(response, 400, { msg: 'Invalid params', errors: [{ path: 'metrics[0]', message: 'unknown metric', x: 1 }, 'junk'] }),
    );

    const error = await failure(post({}, true));

    expect(error).toMatchObject({ kind: 'http', status: 400, upstreamMessage: 'Invalid params' });
    expect(error.upstreamErrors).toEqual([{ path: 'metrics[0]', message: 'unknown metric' }]);
  });

  test('an HTML error page gives an http error without an upstream message', async () => {
    upstream.handle((_request, response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'));

    const error = await failure(post({}));

    expect(error.kind).toBe('http');
    expect(error.status).toBe(502);
    expect(error.upstreamMessage).toBeUndefined();
  });

  test('Retry-After in seconds becomes retryAfterSeconds', async () => {
    upstream.handle((_request, response) => sendJson(response, 429, { msg: 'Too many requests' }, { 'retry-after': '7' }));

    const error = await failure(post({}));

    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 7, upstreamMessage: 'Too many requests' });
  });

  test('Retry-After as an HTTP date is counted from now', async () => {
    upstream.handle((_request, response) =>
      sendJson(response, 429, { msg: 'Too many requests' }, { 'retry-after': 'Sat, 21 Nov 2026 10:00:30 GMT' }),
    );

    const error = await failure(post({}));

    expect(error.retryAfterSeconds).toBe(30);
  });

  test('a token echoed by the upstream does not survive into the error', async () => {
    upstream.handle((request, response) => sendJson(response, 401, { msg: `bad header ${request.headers.authorization}` }));

    const error = await failure({ ...post({}), headers: { authorization: 'Bearer secret-token-123' } });

    expect(error.upstreamMessage).toBe('bad header Bearer [redacted]');
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('secret-token-123');
  });

  test('error bodies are consumed, so a single pooled connection keeps serving requests', async () => {
    // With one socket in the pool, an unread error body larger than the stream
    // buffers would stall that socket, and with it every later request.
    const singleSocket = createAgent({ connections: 1 });
    const client = createHttpClient({ dispatcher: singleSocket, timeoutMs: 1_000 });
    const padding = 'x'.repeat(2_000_000);
    upstream.handle(
      inSequence(
        (_request, response) => sendJson(response, 400, { msg: 'Invalid params', errors: [], padding }),
        (_request, response) => sendJson(response, 404, { msg: 'Experience not found', padding }),
        (_request, response) => sendJson(response, 429, { msg: 'Too many requests', padding }, { 'retry-after': '1' }),
        (_request, response) => sendJson(response, 200, { ok: true }),
      ),
    );

    try {
      await expect(failure(get(), client)).resolves.toMatchObject({ status: 400 });
      await expect(failure(get(), client)).resolves.toMatchObject({ status: 404 });
      await expect(failure(get(), client)).resolves.toMatchObject({ status: 429 });
      await expect(client.requestJson(get())).resolves.toEqual({ ok: true });
    } finally {
      await singleSocket.destroy();
    }
    expect(new Set(upstream.requests.map((request) => request.remotePort)).size).toBe(1);
  });
});

describe('retries', () => {
  test.each([502, 503, 504])('a GET answered %i is retried once and then succeeds', async (status) => {
    upstream.handle(
      inSequence(
        (_request, response) => sendJson(response, status, { msg: 'busy' }),
        (_request, response) => sendJson(response, 200, { ok: true }),
      ),
    );

    await expect(http.requestJson(get())).resolves.toEqual({ ok: true });
    expect(upstream.requests).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].details).toMatchObject({ service: 'recommender', endpoint: '/thing', status });
  });

  test('a GET answered 503 every time fails with the last answer after 1 + retries requests', async () => {
    upstream.handle((_request, response) => sendJson(response, 503, { msg: 'down' }));

    const error = await failure(get());

    expect(error).toMatchObject({ kind: 'http', status: 503, upstreamMessage: 'down' });
    expect(upstream.requests).toHaveLength(3);
    expect(warnings.map((warning) => warning.details)).toMatchObject([
      { retry: 1, delayMs: 20 },
      { retry: 2, delayMs: 40 },
    ]);
  });

  test('retries wait an exponential pause: at least 20 ms, then at least 40 ms', async () => {
    const arrivals: number[] = [];
    upstream.handle((_request, response) => {
      arrivals.push(performance.now());
      if (arrivals.length < 3) sendJson(response, 503, {});
      else sendJson(response, 200, { ok: true });
    });

    await expect(http.requestJson(get())).resolves.toEqual({ ok: true });

    // Timers never fire early by more than rounding (1 ms).
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(19);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(39);
  });

  test('a pause that would end after the deadline is not taken: the 503 is returned at once', async () => {
    const patientBackoff = { ...QUICK_BACKOFF, baseDelayMs: 1_000 };
    const client = createHttpClient({ dispatcher: agent, timeoutMs: 300, backoff: patientBackoff });
    upstream.handle((_request, response) => sendJson(response, 503, { msg: 'down' }));

    const error = await failure(get(), client);

    expect(error).toMatchObject({ kind: 'http', status: 503 });
    expect(upstream.requests).toHaveLength(1);
  });

  test.each([400, 401, 403, 404, 429, 500])('a GET answered %i is not retried', async (status) => {
    upstream.handle((_request, response) => sendJson(response, status, { msg: 'no' }));

    const error = await failure(get());

    expect(error.status).toBe(status);
    expect(upstream.requests).toHaveLength(1);
  });

  test('a POST not marked idempotent is not retried after a 503', async () => {
    upstream.handle((_request, response) => sendJson(response, 503, { msg: 'down' }));

    await failure(post({}));

    expect(upstream.requests).toHaveLength(1);
  });

  test('an idempotent POST is retried after a 503 with the same body', async () => {
    upstream.handle(
      inSequence(
        (_request, response) => sendJson(response, 503, {}),
        (_request, response) => sendJson(response, 200, []),
      ),
    );

    await expect(http.requestJson(post({ q: 1 }, true))).resolves.toEqual([]);
    expect(upstream.requests.map((request) => request.body)).toEqual(['{"q":1}', '{"q":1}']);
  });

  test('a reset connection on a GET is retried once on a fresh connection', async () => {
    upstream.handle(
      inSequence(
        (_request, response) => resetConnection(response),
        (_request, response) => sendJson(response, 200, { ok: true }),
      ),
    );

    await expect(http.requestJson(get())).resolves.toEqual({ ok: true });
    expect(upstream.requests).toHaveLength(2);
  });

  test('a connection reset every time gives a network error after 1 + retries requests', async () => {
    upstream.handle((_request, response) => resetConnection(response));

    const error = await failure(get());

    expect(error.kind).toBe('network');
    expect(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']).toContain(error.reason);
    expect(upstream.requests).toHaveLength(3);
  });

  test('a reset POST that is not idempotent is not retried', async () => {
    upstream.handle((_request, response) => resetConnection(response));

    const error = await failure(post({}));

    expect(error.kind).toBe('network');
    expect(upstream.requests).toHaveLength(1);
  });

  test('a refused connection is a network error and is not retried', async () => {
    const closed = await startFakeUpstream();
    const url = closed.url;
    await closed.close();

    const error = await failure({ ...get(), url: buildUrl(url, '/thing') });

    expect(error).toMatchObject({ kind: 'network', reason: 'ECONNREFUSED' });
    expect(warnings).toHaveLength(0);
  });
});

describe('backoff', () => {
  const options: BackoffOptions = { retries: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

  test.each([
    [0, 0, 50],
    [0, 0.999999, 100],
    [1, 0, 100],
    [2, 0.5, 300],
    [6, 0, 500],
    [6, 0.999999, 1_000],
  ])('retry %i with random %f waits %i ms (half fixed, half jitter, doubling up to the cap)', (retry, random, expected) => {
    expect(backoffDelayMs(retry, { ...options, random: () => random })).toBeCloseTo(expected, 2);
  });

  test('jitter spreads the pauses of many callers', () => {
    const delays = new Set(Array.from({ length: 50 }, () => Math.round(backoffDelayMs(1, options))));

    expect(delays.size).toBeGreaterThan(10);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(100);
  });
});

describe('shared deadlines', () => {
  test('calls whose deadlines fall in the same slot share one signal; a later slot gets its own', () => {
    // Slots of 10 ms: deadlines 1101 and 1104 share the slot ending at 1110; 1114 does not.
    let now = 1_001;
    const slots = new DeadlineTicks(10, () => now);

    const first = slots.signalFor(100);
    now += 3;
    const sameSlot = slots.signalFor(100);
    now += 10;
    const nextSlot = slots.signalFor(100);

    expect(sameSlot).toBe(first);
    expect(nextSlot).not.toBe(first);
  });

  test('a slot aborts no earlier than the deadline of every call in it', async () => {
    const slots = new DeadlineTicks(20);
    const started = performance.now();
    const signal = slots.signalFor(60);

    await new Promise((resolve) => signal.once('abort', resolve));

    expect(signal.aborted).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(59);
  });

  test('many concurrent calls of one client share the deadline without listener warnings', async () => {
    const emitted: string[] = [];
    const onWarning = (warning: Error) => emitted.push(warning.name);
    process.on('warning', onWarning);
    upstream.handle((_request, response) => sendJson(response, 200, { ok: true }));
    try {
      await Promise.all(Array.from({ length: 40 }, () => http.requestJson(get())));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }

    expect(upstream.requests).toHaveLength(40);
    expect(emitted).not.toContain('MaxListenersExceededWarning');
  });
});

describe('timeouts', () => {
  test('no answer within timeoutMs is a timeout, and it is not retried', async () => {
    const quick = createHttpClient({ dispatcher: agent, timeoutMs: 100 });
    upstream.handle(() => undefined);

    const error = await failure(get(), quick);

    expect(error).toMatchObject({ kind: 'timeout', timeoutMs: 100, service: 'recommender' });
    expect(error.message).toContain('100 ms');
    expect(upstream.requests).toHaveLength(1);
  });

  test('a body that stalls after the headers is a timeout too', async () => {
    const quick = createHttpClient({ dispatcher: agent, timeoutMs: 100 });
    upstream.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[1, 2,');
    });

    const error = await failure(get(), quick);

    expect(error.kind).toBe('timeout');
  });

  test('a request queued behind a busy connection times out on its own budget', async () => {
    const singleSocket = createAgent({ connections: 1 });
    const patient = createHttpClient({ dispatcher: singleSocket, timeoutMs: 10_000 });
    const quick = createHttpClient({ dispatcher: singleSocket, timeoutMs: 100 });
    upstream.handle(() => undefined);
    let patientSettled = false;
    const occupying = patient.requestJson(get()).finally(() => {
      patientSettled = true;
    });

    try {
      const error = await failure(get(), quick);

      expect(error.kind).toBe('timeout');
      expect(patientSettled).toBe(false);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await singleSocket.destroy();
      await occupying.catch(() => undefined);
    }
  });

  test('the budget covers the retry: a 503 followed by silence is a timeout after two requests', async () => {
    // A budget the retry fits in even on a loaded machine; the test awaits the retry's arrival, not a clock.
    const patient = createHttpClient({ dispatcher: agent, timeoutMs: 500 });
    let retryArrived!: () => void;
    const retried = new Promise<void>((resolve) => {
      retryArrived = resolve;
    });
    upstream.handle(
      inSequence(
        (_request, response) => sendJson(response, 503, {}),
        () => retryArrived(),
      ),
    );

    const outcome = failure(get(), patient);
    await retried;
    const error = await outcome;

    expect(error).toMatchObject({ kind: 'timeout', timeoutMs: 500 });
    expect(upstream.requests).toHaveLength(2);
  });
});
