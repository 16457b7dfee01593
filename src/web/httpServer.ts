import { createServer, type Server } from 'node:http';
import type { RequestListener } from './router';

/**
 * node:http's connection timeouts, in milliseconds.
 * - keepAliveMs: how long an idle keep-alive connection stays open. Above the
 *   idle timeout of the client's connection pool, so the client, not we,
 *   closes idle connections (else it may send a request on a connection we
 *   are closing: a reset). Apollo Router's pool closes idle connections after
 *   5 s; Node's own default is also 5 s, a race.
 * - headersMs: a new connection must have sent complete headers by then; a
 *   socket that never sends a byte is closed after it. Above keepAliveMs.
 * - requestMs: the whole request (headers and body) must have arrived by then.
 * - checkIntervalMs: how often Node looks for connections past these limits.
 */
export interface HttpTimeouts {
  keepAliveMs: number;
  headersMs: number;
  requestMs: number;
  checkIntervalMs: number;
}

const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { keepAliveMs: 15_000, headersMs: 20_000, requestMs: 30_000, checkIntervalMs: 1_000 };

/** A node:http server with the timeouts above (defaults, or the given ones for tests). */
export function createHttpServer(listener: RequestListener, timeouts: Partial<HttpTimeouts> = {}): Server {
  const { keepAliveMs, headersMs, requestMs, checkIntervalMs } = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  if (!(keepAliveMs < headersMs && headersMs <= requestMs)) {
    throw new RangeError(`HTTP timeouts must be keepAlive < headers <= request, got ${keepAliveMs}, ${headersMs}, ${requestMs} ms`);
  }
  const server = createServer(
    { keepAliveTimeout: keepAliveMs, headersTimeout: headersMs, requestTimeout: requestMs, connectionsCheckingInterval: checkIntervalMs },
    listener,
  );
  server.keepAliveTimeout = keepAliveMs;
  return server;
}
