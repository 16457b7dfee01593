import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Outcome } from '../outcome';
import { readJsonBody } from './body';

/**
 * One incoming request as the routes see it. The body is read at most once and
 * memoized, so the stats recorder (which keys on the body) and the handler can
 * both ask for it.
 */
export class EmulatorRequest {
  readonly url: URL;
  params: Record<string, string> = {};
  private body: Promise<Outcome<unknown>> | undefined;

  constructor(
    readonly raw: IncomingMessage,
    readonly response: ServerResponse,
    private readonly bodyLimitBytes: number,
  ) {
    // The Host header is client-controlled; the path is all the routes need.
    this.url = new URL(raw.url ?? '/', 'http://emulator.invalid');
  }

  get method(): string {
    return (this.raw.method ?? 'GET').toUpperCase();
  }

  header(name: string): string | undefined {
    const value = this.raw.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  /** The client's address as seen on the socket; forwarding headers are not trusted. */
  get clientIp(): string {
    return this.raw.socket.remoteAddress ?? 'unknown';
  }

  json(limitBytes = this.bodyLimitBytes): Promise<Outcome<unknown>> {
    this.body ??= readJsonBody(this.raw, limitBytes);
    return this.body;
  }

  /** Drops the connection without an HTTP response (the `reset` fault). */
  destroyConnection(): void {
    this.raw.socket.destroy();
  }
}
