import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../kernel/failures/errorCodes';

/** A route of the HTTP server: it answers the request itself (any method it accepts). */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** A JSON answer with its length, so keep-alive connections never need chunked encoding. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** Errors outside GraphQL execution, in the GraphQL error shape so clients parse one format. */
export function sendRequestError(response: ServerResponse, status: number, message: string, code: string = ErrorCode.BAD_REQUEST): void {
  sendJson(response, status, { errors: [{ message, extensions: { code } }] });
}

/** Only GET and HEAD read a resource; anything else is a 405 that names them. */
export function isRead(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  sendRequestError(response, 405, `${request.method ?? 'This method'} is not allowed here; use GET`, 'METHOD_NOT_ALLOWED');
  return false;
}
