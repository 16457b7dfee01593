import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { redactMetricsScrape } from '../../redaction';

/**
 * `GET /metrics` in the Prometheus text format, as a plain Node handler so
 * any HTTP layer can mount it. Anything but GET/HEAD is a 405 with a JSON body.
 */
export function metricsHandler(registry: Registry): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'Method not allowed: /metrics answers GET' }));
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : redactMetricsScrape(text));
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: `collecting metrics failed: ${error instanceof Error ? error.message : String(error)}` }));
      },
    );
  };
}
