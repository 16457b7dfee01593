/**
 * A proxy in front of the emulator that forwards everything unchanged and
 * records each dashboard body: what the vendor receives (after the
 * governor, the coalescing and the answer cache), in arrival order.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DashboardQueryBody } from '../../src/kernel/wire';

export interface BodyRecorder {
  url: string;
  /** Every dashboard body the emulator received, in arrival order. */
  dashboards: DashboardQueryBody[];
  /** The emulator's status for each dashboard body, in the order it answered (429: over the vendor's budget). */
  dashboardStatuses: number[];
  close(): Promise<void>;
}

/** Forwards everything to the emulator unchanged, recording each dashboard body: what the vendor receives. */
export async function startBodyRecorder(target: string): Promise<BodyRecorder> {
  const dashboards: DashboardQueryBody[] = [];
  const dashboardStatuses: number[] = [];
  const targetUrl = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const dashboard = (incoming.url ?? '').startsWith('/api/dashboard/query');
      if (dashboard) dashboards.push(JSON.parse(body.toString('utf8')) as DashboardQueryBody);
      const forwarded = httpRequest(
        { host: targetUrl.hostname, port: targetUrl.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          if (dashboard) dashboardStatuses.push(answer.statusCode ?? 502);
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dashboards,
    dashboardStatuses,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
