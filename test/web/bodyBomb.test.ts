/**
 * A compressed request body that inflates far past the limit (a "bomb") is
 * refused with a JSON 413, and the decoder stops there: it is destroyed, and
 * the bytes it produced stay near the limit instead of the bomb's full size.
 */
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import type { BuiltServer } from '../../src/web/server';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender, silentLogger } from '../support/subgraph';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

const MiB = 1024 * 1024;
/** The subgraph's body limit (src/web/server.ts). */
const LIMIT = MiB;
const BOMB_SIZE = 128 * MiB;

let server: BuiltServer;
let graphqlUrl: string;

beforeAll(async () => {
  server = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS }), {
    recommender: fakeRecommender(),
    dashboard: fakeReporting(),
    logger: silentLogger,
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  graphqlUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;
});
afterAll(() => server.stop());
afterEach(() => jest.restoreAllMocks());

/** `{"query":"{__typename}","padding":"xxxx…"}` of BOMB_SIZE bytes, compressed, built chunk by chunk. */
function bomb(compress: (input: Buffer) => Buffer): Buffer {
  const text = Buffer.alloc(BOMB_SIZE, 'x');
  text.write('{"query":"{__typename}","padding":"');
  text.write('"}', BOMB_SIZE - 2);
  return compress(text);
}

interface WatchedDecoder {
  stream: zlib.Gunzip | zlib.BrotliDecompress;
  produced: number;
}

/** Records each decoder of the class that pushes inflated bytes, and how many it pushed. */
function watchDecoders(decoderClass: typeof zlib.Gunzip | typeof zlib.BrotliDecompress): WatchedDecoder[] {
  const watched: WatchedDecoder[] = [];
  const push = decoderClass.prototype.push;
  // `push` sees every inflated chunk, without putting the stream in flowing mode.
  jest.spyOn(decoderClass.prototype, 'push').mockImplementation(function (this: zlib.Gunzip, chunk: unknown, encoding?: BufferEncoding) {
    let entry = watched.find((candidate) => candidate.stream === this);
    if (entry === undefined) {
      entry = { stream: this, produced: 0 };
      watched.push(entry);
    }
    if (Buffer.isBuffer(chunk)) entry.produced += chunk.length;
    return push.call(this, chunk, encoding);
  });
  return watched;
}

function closed(stream: NodeJS.EventEmitter & { destroyed: boolean }): Promise<void> {
  return stream.destroyed ? Promise.resolve() : new Promise((resolve) => stream.once('close', () => resolve()));
}

describe.each([
  { encoding: 'br', decoderClass: zlib.BrotliDecompress, compress: (input: Buffer) => zlib.brotliCompressSync(input) },
  { encoding: 'gzip', decoderClass: zlib.Gunzip, compress: (input: Buffer) => zlib.gzipSync(input, { level: 9 }) },
])('a $encoding bomb', ({ encoding, decoderClass, compress }) => {
  const body = bomb(compress);

  it('is refused with a JSON 413, and its decoder is destroyed after producing little more than the limit', async () => {
    const decoders = watchDecoders(decoderClass);
    const response = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: `request body is larger than ${LIMIT} bytes`, extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(decoders).toHaveLength(1);
    const [decoder] = decoders;
    await closed(decoder.stream);
    // Destroyed, not ended: the decoder never reached the end of the bomb.
    expect(decoder.stream.readableEnded).toBe(false);
    expect(decoder.produced).toBeGreaterThan(LIMIT);
    expect(decoder.produced).toBeLessThan(4 * LIMIT);
  });

  it('leaves the server serving', async () => {
    const response = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{__typename}"}',
    });
    expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
