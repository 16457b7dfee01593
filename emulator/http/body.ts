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
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    return tooLarge(limitBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limitBytes) {
        req.resume();
        return tooLarge(limitBytes);
      }
      chunks.push(chunk);
    }
  } catch {
    return failure(400, 'Request body could not be read');
  }
  const text = Buffer.concat(chunks).toString('utf8');
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

function tooLarge(limitBytes: number): Outcome<never> {
  return failure(413, `Request body too large: at most ${limitBytes} bytes`);
}
