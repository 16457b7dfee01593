import type { ServerResponse } from 'node:http';
import type { Reply } from './reply';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Writes a reply; a no-op when the connection is already gone. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = { 'cache-control': 'no-store', ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers['content-type'] = JSON_CONTENT_TYPE;
  headers['content-length'] = Buffer.byteLength(text);
  res.writeHead(reply.status, headers);
  res.end(text);
}
