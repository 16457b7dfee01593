import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client's port: equal ports mean a reused keep-alive connection. */
  remotePort: number;
}

export type FakeHandler = (request: RecordedRequest, response: ServerResponse) => void;

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler for the following requests. */
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

/** A scriptable upstream on 127.0.0.1 and an ephemeral port, recording every request it receives. */
export async function startFakeUpstream(handler: FakeHandler = (_request, response) => sendJson(response, 200, {})): Promise<FakeUpstream> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fake');
      const recorded: RecordedRequest = {
        method: incoming.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: incoming.socket.remotePort ?? 0,
      };
      requests.push(recorded);
      current(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Handlers that never answer leave sockets open; close() alone would wait for them forever.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

/** Drops the connection without an answer, as a crashing upstream or a closing keep-alive socket does. */
export function resetConnection(response: ServerResponse): void {
  response.socket?.destroy();
}

/** Answers the requests in turn with the given handlers; the last one repeats. */
export function inSequence(...handlers: FakeHandler[]): FakeHandler {
  let calls = 0;
  return (request, response) => {
    const handler = handlers[Math.min(calls, handlers.length - 1)];
    calls += 1;
    handler(request, response);
  };
}
