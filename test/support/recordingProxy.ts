import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  url: string;
  /** The path (without query) and `traceparent` header of every request, in arrival order. */
  requests: { path: string; traceparent: string | undefined }[];
  close(): Promise<void>;
}

/**
 * Forwards everything to `target` unchanged, recording which `traceparent`
 * each request carried: what the upstream receives.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordingProxy['requests'] = [];
  const targetUrl = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const traceparent = incoming.headers.traceparent;
    requests.push({ path: (incoming.url ?? '/').split('?')[0], traceparent: typeof traceparent === 'string' ? traceparent : undefined });
    const forwarded = httpRequest(
      { host: targetUrl.hostname, port: targetUrl.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
