import type { IncomingMessage } from 'node:http';
import { failure, invalidParams, ok, type Outcome } from '../outcome';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads the whole request body and parses it as JSON. Too large → 413 (the
 * rest of the body is discarded, not buffered); empty or not JSON → the
 * contract's 400. Whatever the Content-Type says, the bytes decide: clients
 * that forget the header still get a precise answer.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<Outcome<unknown>> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  // The vendor's API takes plain JSON only; inflating here would also let a few bytes cost gigabytes.
  if (encoding !== 'identity') return failure(415, `Unsupported Content-Encoding "${encoding}": send the body uncompressed`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.pause();
    return tooLarge(limitBytes);
  }
  const read = await readLimited(req, limitBytes);
  if (read === 'too large') return tooLarge(limitBytes);
  if (read === 'unreadable') return failure(400, 'Request body could not be read');
  const text = read.toString('utf8');
  if (text.trim() === '') {
    return invalidParams([{ path: 'body', message: 'must be a JSON document, the request body is empty' }]);
  }
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    // The parser's own message quotes the body, which may hold a password.
    return invalidParams([{ path: 'body', message: 'must be valid JSON' }]);
  }
}

/**
 * The body's bytes, or why not. Past the limit, reading stops at once: the
 * request is paused (never destroyed, so the 413 can still be written; the
 * handler answers it with `Connection: close`, which ends the socket).
 */
function readLimited(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'too large' | 'unreadable'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.pause();
      resolve('too large');
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', () => resolve('unreadable'));
  });
}

function tooLarge(limitBytes: number): Outcome<never> {
  return failure(413, `Request body too large: at most ${limitBytes} bytes`);
}
