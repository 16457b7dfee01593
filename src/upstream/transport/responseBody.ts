import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** A body that was not read to the end, and why (in words for an UPSTREAM_BAD_RESPONSE reason). */
export class UnreadableBody extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UnreadableBody';
  }
}

type Headers = IncomingHttpHeaders | Record<string, string | string[] | undefined>;

/**
 * Reads an upstream body as UTF-8 text, chunk by chunk, and abandons it as
 * soon as more than `maxBytes` have arrived (after decoding, so a small
 * compressed bomb is stopped too): the body stream and the decoder are
 * destroyed, which closes the socket instead of downloading the rest. A
 * Content-Length above the cap is refused before a byte is read. We never ask
 * for compression (no Accept-Encoding), but gzip, deflate and br are decoded
 * as streams in case a proxy sends them anyway; other encodings are refused.
 */
export async function readBodyText(body: Dispatcher.ResponseData['body'], headers: Headers, maxBytes: number): Promise<string> {
  const declared = Number(single(headers['content-length']));
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new UnreadableBody(`body of ${declared} bytes is larger than the ${maxBytes}-byte cap (UPSTREAM_MAX_RESPONSE_BYTES)`);
  }
  const encoding = single(headers['content-encoding']);
  // The common case, a plain body of a declared size within the cap: HTTP framing stops it at that size,
  // so it is read whole, without a chunk loop (the hot path of every upstream call).
  const name = encoding?.trim().toLowerCase() ?? '';
  if (Number.isFinite(declared) && isIdentity(name)) return body.text();
  const source = decoded(body, name);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) throw new UnreadableBody(`body is more than the ${maxBytes}-byte cap (UPSTREAM_MAX_RESPONSE_BYTES)`);
      chunks.push(buffer);
    }
  } catch (error) {
    // Stop all work on the rest: no more download, no more inflating.
    source.destroy();
    body.destroy();
    throw isDecodingError(error) ? new UnreadableBody('compressed body could not be decoded') : error;
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function isIdentity(name: string): boolean {
  return name === '' || name === 'identity';
}

/** The body as it reads after its content-encoding (`name`: trimmed, lower case) is undone. */
function decoded(body: Readable, name: string): Readable {
  if (isIdentity(name)) return body;
  const decoder = decoderFor(name);
  if (decoder === undefined) {
    body.destroy();
    throw new UnreadableBody(`content-encoding ${JSON.stringify(name.slice(0, 40))} is not supported`);
  }
  // pipeline carries an aborted or failed body into the decoder, which the reader iterates.
  pipeline(body, decoder, () => undefined);
  return decoder;
}

function decoderFor(name: string): Transform | undefined {
  if (name === 'gzip' || name === 'x-gzip') return createGunzip();
  if (name === 'deflate') return createInflate();
  if (name === 'br') return createBrotliDecompress();
  return undefined;
}

/** zlib's own errors carry codes like Z_DATA_ERROR or ERR_BROTLI_DECOMPRESSION_FAILED. */
function isDecodingError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code.startsWith('Z_') || code.includes('BROTLI');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
