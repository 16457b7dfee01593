import { createServer, type RequestListener, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { metricsHandler } from './handler';

/**
 * The optional separate listener (METRICS_PORT), so the scrape port can stay
 * inside the cluster while /graphql is exposed. It serves /metrics and the
 * given routes (the health checks, `routes`), nothing else: a probe sent
 * here never waits in /graphql's accept queue behind thousands of sockets
 * reconnecting at once (bench/README.md, "Live at scale").
 */
export function createMetricsServer(registry: Registry, routes: Readonly<Record<string, RequestListener>> = {}): Server {
  const handle = metricsHandler(registry);
  return createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    const route = path === '/metrics' ? handle : Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (route !== undefined) {
      route(request, response);
      return;
    }
    const served = ['/metrics', ...Object.keys(routes)].join(', ');
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: `Not found: this port serves ${served}` }));
  });
}
