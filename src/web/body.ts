import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';

/** A request body the server refuses, with the HTTP status to answer. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The parsed JSON body of a request whose content type is JSON, `undefined`
 * for any other content type (Apollo then answers its own 400). Hand-written
 * instead of body-parser: this is the hot path, and body-parser's generic
 * decoding costs several µs per request that plain UTF-8 JSON never needs.
 * Compressed bodies (gzip, deflate, br, as a router may send) are inflated,
 * and the limit applies to the inflated size.
 */
export async function readJsonBody(request: IncomingMessage, limitBytes: number): Promise<unknown> {
  const contentType = request.headers['content-type'];
  if (contentType === undefined || !isJson(contentType)) return undefined;
  assertUtf8(contentType);
  const declared = Number(request.headers['content-length']);
  if (declared > limitBytes) throw new BodyError(413, `request body is larger than ${limitBytes} bytes`);
  const text = await readText(decoded(request), limitBytes);
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BodyError(400, `request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function isJson(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0].trim().toLowerCase();
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function assertUtf8(contentType: string): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new BodyError(415, `unsupported charset "${charset}"; JSON bodies must be UTF-8`);
  }
}

/** The stream of inflated bytes, and how to stop all work on it when the body is refused. */
interface BodyStream {
  stream: Readable;
  stop(): void;
}

function decoded(request: IncomingMessage): BodyStream {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return { stream: request, stop: () => request.pause() };
  const decoder = DECODERS[encoding];
  if (decoder === undefined) throw new BodyError(415, `unsupported content encoding "${encoding}"`);
  const stream = decoder();
  request.on('error', (error) => stream.destroy(error));
  request.pipe(stream);
  return {
    stream,
    // A few compressed bytes can inflate to gigabytes: the decoder must not run one step past the refusal.
    stop: () => {
      request.unpipe(stream);
      request.pause();
      stream.destroy();
    },
  };
}

/**
 * Events rather than `for await`: the async iterator costs a promise per chunk on the hot path.
 * The limit counts the decoder's own output chunks, so it holds however far the body inflates.
 */
function readText({ stream, stop }: BodyStream, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      stream.off('data', onData);
      stop();
      reject(new BodyError(413, `request body is larger than ${limitBytes} bytes`));
    };
    stream.on('data', onData);
    stream.once('end', () => {
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
      // toString would replace each bad byte with U+FFFD: a client's text would reach the resolvers altered, without a word.
      if (isUtf8(bytes)) resolve(bytes.toString('utf8'));
      else reject(new BodyError(400, 'request body is not valid UTF-8; JSON bodies must be UTF-8'));
    });
    stream.once('error', (error: Error) => reject(new BodyError(400, `request body could not be read: ${error.message}`)));
  });
}
