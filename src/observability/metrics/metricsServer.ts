import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { metricsHandler } from './handler';

/**
 * The optional separate listener (METRICS_PORT), so the scrape port can stay
 * inside the cluster while /graphql is exposed. Only /metrics is served.
 */
export function createMetricsServer(registry: Registry): Server {
  const handle = metricsHandler(registry);
  return createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://metrics').pathname === '/metrics') {
      handle(request, response);
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'Not found: metrics are served at /metrics' }));
  });
}
