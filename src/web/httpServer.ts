import { createServer, type Server } from 'node:http';
import type { HttpTimeouts } from '../config';
import type { RequestListener } from './router';

/** A node:http server with these connection timeouts (src/config/server.ts explains their defaults). */
export function createHttpServer(listener: RequestListener, timeouts: HttpTimeouts): Server {
  const { keepAliveMs, headersMs, requestMs, checkIntervalMs } = timeouts;
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
