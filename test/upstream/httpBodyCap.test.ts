/**
 * Upstream bodies are read as a stream and abandoned past the cap
 * (UPSTREAM_MAX_RESPONSE_BYTES): over real HTTP, the fake upstream counts
 * what it managed to send before the client hung up.
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Agent } from 'undici';
import { createAgent } from '../../src/upstream/transport/agent';
import type { HttpClient, JsonRequest } from '../../src/upstream/transport/httpClient';
import { retryingClient as createHttpClient } from '../support/httpPath';
import { buildUrl } from '../../src/upstream/transport/url';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { sendJson, useFakeUpstream } from '../support/fakeUpstream';

const upstream = useFakeUpstream();
const CAP = 64 * 1024;
let agent: Agent;
let http: HttpClient;

beforeEach(() => {
  agent = createAgent({ connections: 4 });
  http = createHttpClient({ dispatcher: agent, timeoutMs: 5_000, maxResponseBytes: CAP });
});
afterEach(async () => {
  await agent.destroy();
});

function render(): JsonRequest {
  return { service: 'recommender', endpoint: '/render.json', url: buildUrl(upstream.url, '/render.json', { id: 'IL_a' }), method: 'GET' };
}

async function failure(request: JsonRequest, client: HttpClient = http): Promise<UpstreamError> {
  const error = await client.requestJson(request).then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

/**
 * Streams `totalBytes` of a JSON array in 16 KiB chunks (streamChunks) with a 200 (or `status`) and `headers`;
 * resolves with the bytes written when the response closes.
 */
function streamLargeBody(
  response: ServerResponse,
  totalBytes: number,
  headers: Record<string, string | number>,
  status = 200,
): Promise<number> {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  return streamChunks(response, { head: '[', chunk: Buffer.from(`"${'x'.repeat(16 * 1024 - 3)}",`), tail: '0]', totalBytes });
}

/**
 * Writes `head`, then `chunk` over and over, honouring back-pressure, until `totalBytes` are written (then `tail`)
 * or until the client goes away; resolves with the bytes of `chunk` written when the response closes.
 */
function streamChunks(
  response: ServerResponse,
  { head, chunk, tail, totalBytes }: { head: string | Buffer; chunk: Buffer; tail: string; totalBytes: number },
): Promise<number> {
  let written = 0;
  const closed = new Promise<number>((resolve) => response.on('close', () => resolve(written)));
  response.write(head);
  const writeMore = (): void => {
    while (written < totalBytes && !response.destroyed) {
      written += chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', writeMore);
        return;
      }
    }
    if (!response.destroyed) response.end(tail);
  };
  writeMore();
  return closed;
}

describe('upstream body cap', () => {
  test('a Content-Length above the cap is refused before the body is read, naming the size and the cap', async () => {
    const total = 50 * 1024 * 1024;
    let sent: Promise<number> | undefined;
    upstream.handle((_request, response) => {
      sent = streamLargeBody(response, total, { 'content-length': total + 3 });
    });

    const error = await failure(render());

    expect(error).toMatchObject({ kind: 'bad_response', status: 200, service: 'recommender' });
    expect(error.reason).toContain(`${total + 3} bytes`);
    expect(error.reason).toContain(`${CAP}-byte cap`);
    // The client hung up long before the upstream could send it all.
    expect(await sent).toBeLessThan(total);
  });

  test('a chunked body without Content-Length is abandoned once it passes the cap', async () => {
    const total = 50 * 1024 * 1024;
    let sent: Promise<number> | undefined;
    upstream.handle((_request, response) => {
      sent = streamLargeBody(response, total, {});
    });

    const error = await failure(render());

    expect(error).toMatchObject({ kind: 'bad_response', status: 200 });
    expect(error.reason).toContain(`more than the ${CAP}-byte cap`);
    expect(await sent).toBeLessThan(total);
  });

  test('a body just under the cap is read and parsed', async () => {
    const items = Array.from({ length: 100 }, (_, index) => `item-${index}-${'y'.repeat(500)}`);
    upstream.handle((_request, response) => sendJson(response, 200, { items }));

    await expect(http.requestJson(render())).resolves.toEqual({ items });
  });

  test('a gzip body is inflated as a stream, and the cap counts inflated bytes (a small bomb is refused)', async () => {
    const bomb = gzipSync(Buffer.from(`[${'0,'.repeat(4 * 1024 * 1024)}0]`));
    expect(bomb.length).toBeLessThan(CAP);
    upstream.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      response.end(bomb);
    });

    const error = await failure(render());

    expect(error).toMatchObject({ kind: 'bad_response', status: 200 });
    expect(error.reason).toContain(`more than the ${CAP}-byte cap`);
  });

  test('a deflate body that decodes to nothing is abandoned once its own bytes pass the cap', async () => {
    // A zlib header, then empty stored blocks (5 bytes each, no output) for ever: only the encoded bytes can stop it.
    const emptyBlocks = Buffer.alloc(16 * 1024 - 4, Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]));
    const total = 50 * 1024 * 1024;
    let sent: Promise<number> | undefined;
    upstream.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      sent = streamChunks(response, { head: Buffer.from([0x78, 0x01]), chunk: emptyBlocks, tail: '', totalBytes: total });
    });

    const error = await failure(render());

    expect(error).toMatchObject({ kind: 'bad_response', status: 200 });
    expect(error.reason).toContain(`compressed body is more than the ${CAP}-byte cap`);
    expect(await sent).toBeLessThan(total);
  });

  test('a small gzip body is inflated and parsed', async () => {
    upstream.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.from(JSON.stringify({ ok: [1, 2, 3] }))));
    });

    await expect(http.requestJson(render())).resolves.toEqual({ ok: [1, 2, 3] });
  });

  test('an error answer with a body above the cap keeps its status; the body is dropped unread', async () => {
    const total = 10 * 1024 * 1024;
    let sent: Promise<number> | undefined;
    upstream.handle((_request, response) => {
      sent = streamLargeBody(response, total, {}, 500);
    });

    const error = await failure(render());

    expect(error).toMatchObject({ kind: 'http', status: 500 });
    expect(error.upstreamMessage).toBeUndefined();
    expect(await sent).toBeLessThan(total);
  });

  test('the default cap is 8 MiB', async () => {
    const client = createHttpClient({ dispatcher: agent, timeoutMs: 5_000 });
    const total = 9 * 1024 * 1024;
    upstream.handle((_request, response) => {
      void streamLargeBody(response, total, {});
    });

    const error = await failure(render(), client);

    expect(error.reason).toContain(`more than the ${8 * 1024 * 1024}-byte cap`);
  });
});
