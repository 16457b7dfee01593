/**
 * The emulator's body reader stops work on a body it refuses: a body that
 * streams past the limit (no Content-Length) gets its 413 JSON, and a
 * compressed body, which the vendor's API never accepts, is refused with a
 * 415 before any byte is inflated.
 */
import { gzipSync } from 'node:zlib';
import type { RunningEmulator } from '../../emulator';
import { call, startTestEmulator, type ErrorBody } from '../support/emulator';

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

/** 64 KiB chunks without a Content-Length: the limit can only be found while reading. */
function streamed(totalBytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) {
        controller.close();
        return;
      }
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

describe('emulator request bodies', () => {
  it('answers a streamed body over 1 MiB with a 413 JSON and keeps serving', async () => {
    const response = await fetch(`${emulator.url}/api/user/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamed(2 * 1024 * 1024),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as ErrorBody).msg).toContain('too large');
    expect((await call(emulator, '/__emulator/clock')).status).toBe(200);
  });

  it('refuses a compressed body with a 415 naming the encoding', async () => {
    const body = gzipSync(JSON.stringify({ email: 'a@b.example', password: 'x' }));
    const response = await fetch(`${emulator.url}/api/user/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as ErrorBody).msg).toBe('Unsupported Content-Encoding "gzip": send the body uncompressed');
  });
});
