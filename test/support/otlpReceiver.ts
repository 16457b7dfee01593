import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/HTTP JSON carries it (the fields the tests read). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: OtlpSpan[];
  /** Every request body as received, to search for what must never be exported. */
  rawBodies: string[];
  /** Resolves once `predicate` holds for the spans received so far. */
  waitFor(predicate: (spans: OtlpSpan[]) => boolean, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

interface ExportRequest {
  resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** A local OTLP/HTTP receiver (JSON protocol): what a collector would get from the SDK's exporter. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const rawBodies: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      rawBodies.push(body);
      if (request.url === '/v1/traces') {
        const parsed = JSON.parse(body) as ExportRequest;
        for (const resource of parsed.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
      for (const waiter of waiters) waiter();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    rawBodies,
    waitFor: (predicate, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`spans not received within ${timeoutMs} ms; got ${spans.map((span) => span.name).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function attribute(span: OtlpSpan, key: string): unknown {
  const found = span.attributes?.find((entry) => entry.key === key);
  return found === undefined ? undefined : Object.values(found.value)[0];
}
