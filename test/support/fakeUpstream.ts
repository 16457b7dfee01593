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
  /**
   * Between tests: waits until every request received has been answered or
   * dropped, then forgets them and restores the first handler. Rejects, naming
   * them, when some are still open after `graceMs`: a test that leaves
   * requests in flight has not waited for its own work, and those requests
   * would otherwise be answered by (and recorded in) the next test.
   */
  reset(graceMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A scriptable upstream on 127.0.0.1 and an ephemeral port, recording every request it receives. */
export async function startFakeUpstream(handler: FakeHandler = (_request, response) => sendJson(response, 200, {})): Promise<FakeUpstream> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const inFlight = new InFlight();
  const server = createServer((incoming, response) => {
    inFlight.track(`${incoming.method ?? ''} ${incoming.url ?? ''}`, response);
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
    async reset(graceMs = 2_000) {
      const leftOver = await inFlight.settled(graceMs);
      requests.length = 0;
      current = handler;
      if (leftOver.length > 0) {
        throw new Error(`${leftOver.length} request(s) still in flight at the end of the test: ${leftOver.join(', ')}`);
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Handlers that never answer leave sockets open; close() alone would wait for them forever.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * One fake upstream for a test file: started before its tests, reset after
 * each (failing the test that left requests in flight), closed after all.
 * Call it before the file's own afterEach hooks (e.g. destroying the client's
 * agent) so that it sees what the test left behind, not what clean-up cut off.
 */
export function useFakeUpstream(handler?: FakeHandler): FakeUpstream {
  let started: FakeUpstream | undefined;
  const upstream = (): FakeUpstream => {
    if (started === undefined) throw new Error('useFakeUpstream: the fake upstream starts in beforeAll; use it inside tests and hooks');
    return started;
  };
  beforeAll(async () => {
    started = await startFakeUpstream(handler);
  });
  afterEach(async () => {
    await started?.reset();
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get url() {
      return upstream().url;
    },
    get requests() {
      return upstream().requests;
    },
    handle: (next) => upstream().handle(next),
    reset: (graceMs) => upstream().reset(graceMs),
    close: () => upstream().close(),
  };
}

/** Requests received and not yet answered or dropped. */
class InFlight {
  private readonly open = new Map<ServerResponse, string>();
  private waiters: (() => void)[] = [];

  track(label: string, response: ServerResponse): void {
    this.open.set(response, label);
    // 'close' follows both a finished answer and a connection dropped by either side.
    response.on('close', () => {
      this.open.delete(response);
      if (this.open.size === 0) this.wake();
    });
  }

  /** Resolves with nothing once all are done, or with the labels of those still open after graceMs (whose connections are then dropped). */
  async settled(graceMs: number): Promise<string[]> {
    if (this.open.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const drained = new Promise<void>((resolve) => this.waiters.push(resolve));
      const expired = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([drained, expired]);
      clearTimeout(timer);
    }
    const leftOver = [...this.open.values()];
    for (const response of this.open.keys()) response.socket?.destroy();
    return leftOver;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
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
