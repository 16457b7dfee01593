/**
 * A transparent HTTP proxy in front of the emulator that makes render.json
 * fail (503) for chosen requests only, so a test decides exactly which
 * upstream keys fail. The emulator's own faults hit a share of requests at
 * random, which under concurrent calls cannot say *which* keys fail.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const RENDER_PATH = '/recommenderexperience/render.json';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the ones fetch recomputes: never forwarded. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'content-encoding']);

export interface FailingRenderProxy {
  url: string;
  /** Render requests whose query matches fail with 503 from now on; `() => false` makes the proxy transparent again. */
  failWhen(predicate: (query: URLSearchParams) => boolean): void;
  /** The query of every render request the proxy failed, in arrival order. */
  failed: URLSearchParams[];
  close(): Promise<void>;
}

export async function startFailingRenderProxy(targetUrl: string): Promise<FailingRenderProxy> {
  let shouldFail: (query: URLSearchParams) => boolean = () => false;
  const failed: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', targetUrl);
    if (url.pathname === RENDER_PATH && shouldFail(url.searchParams)) {
      failed.push(url.searchParams);
      response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ msg: 'Service unavailable (test proxy)' }));
      return;
    }
    forward(request, response, url).catch((error: unknown) => {
      response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ msg: `proxy: ${String(error)}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    failWhen(predicate) {
      shouldFail = predicate;
    },
    failed,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function forward(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !NOT_FORWARDED.has(name)) headers[name] = value;
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const upstream = await fetch(url, { method: request.method, headers, body });
  const answer = Buffer.from(await upstream.arrayBuffer());
  const answerHeaders: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name)) answerHeaders[name] = value;
  });
  response.writeHead(upstream.status, answerHeaders).end(answer);
}
