import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { createRequestListener } from '../../emulator/http/handler';
import { json } from '../../emulator/http/reply';
import { Router } from '../../emulator/http/router';
import { call, startTestEmulator, type ErrorBody } from '../support/emulator';

/** Sends raw bytes and resolves with everything the server answered before closing. */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('emulator robustness', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(() => emulator.close());

  it('answers an unknown route with 404 JSON', async () => {
    const { status, body } = await call<ErrorBody>(emulator, '/api/nothing-here');
    expect(status).toBe(404);
    expect(body.msg).toContain('/api/nothing-here');
  });

  it('answers a known route with the wrong method with 405 JSON and Allow', async () => {
    const { status, headers, body } = await call<ErrorBody>(emulator, '/api/user/signin');
    expect(status).toBe(405);
    expect(headers.get('allow')).toBe('POST');
    expect(body.msg).toContain('POST');
  });

  it('answers a body over 1 MiB with 413 JSON', async () => {
    const huge = JSON.stringify({ email: 'a@b.example', password: 'x'.repeat(1024 * 1024 + 10) });
    const { status, body } = await call<ErrorBody>(emulator, '/api/user/signin', { method: 'POST', body: huge });
    expect(status).toBe(413);
    expect(body.msg).toContain('too large');
    // The emulator keeps serving.
    expect((await call(emulator, '/__emulator/clock')).status).toBe(200);
  });

  it('answers malformed HTTP with 400 JSON', async () => {
    const answer = await rawRequest(emulator.port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('application/json');
    expect(answer).toContain('{"msg":"Bad request"}');
  });

  it('closes promptly even with a long injected delay in flight', async () => {
    const own = await startTestEmulator();
    await call(own, '/__emulator/faults', { body: { target: 'render', delayMs: 60_000 } });
    const { id, domain } = own.demo.experiences[0];
    const pending = fetch(`${own.url}/recommenderexperience/render.json?${new URLSearchParams({ id, domain })}`).then(
      (response) => response.status,
      () => 'rejected',
    );
    // Stats count a request before its fault's delay starts.
    while ((await call<{ render: { count: number } }>(own, '/__emulator/stats')).body.render.count === 0);
    const started = performance.now();
    await own.close();
    expect(performance.now() - started).toBeLessThan(2000);
    expect([200, 'rejected']).toContain(await pending);
  });
});

describe('request listener', () => {
  let server: Server;
  let base: string;
  const logged: unknown[] = [];

  beforeAll(async () => {
    const router = new Router()
      .add('GET', '/boom', () => {
        throw new Error('handler exploded at /secret/path');
      })
      .add('GET', '/items/:id', (request) => json(200, { id: request.params.id }))
      .add('GET', '/unserializable', () => json(200, { big: 1n }));
    server = createServer(createRequestListener(router, { bodyLimitBytes: 1024, logError: (e) => logged.push(e) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('turns a thrown error into a 500 JSON without internals, logs it, and keeps serving', async () => {
    const response = await fetch(`${base}/boom`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ msg: 'Internal server error' });
    expect(text).not.toContain('exploded');
    expect(logged).toHaveLength(1);
    expect((await fetch(`${base}/items/a%20b`)).status).toBe(200);
  });

  it('answers 500 when a reply cannot be serialized', async () => {
    const response = await fetch(`${base}/unserializable`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ msg: 'Internal server error' });
  });

  it('decodes path parameters', async () => {
    const response = await fetch(`${base}/items/a%20b`);
    expect(await response.json()).toEqual({ id: 'a b' });
  });
});
