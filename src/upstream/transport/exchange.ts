import type { IncomingHttpHeaders } from 'node:http';
import type { Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { DeadlineTick } from './deadlines';

/** A response read as far as the cap allows: `unreadable` says why the text is missing. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  unreadable?: string;
}

/** One HTTP request as undici's `dispatch` takes it. */
export interface Exchange {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Sends one request and reads its answer as UTF-8 text, settling at once when
 * `signal` aborts (the call's deadline), whether or not the request has
 * reached a socket yet.
 *
 * On undici's `dispatch`, not `request`: the answer is read straight from the
 * parser's chunks, without the body stream, its async iteration and the
 * abort-signal wiring `request` builds per call, which were a third of the
 * transport's CPU (bench/README.md, "The raw path at parity: sixth pass").
 */
export function exchange(dispatcher: Dispatcher, request: Exchange, signal: DeadlineTick, maxBytes: number): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const reader = new AnswerReader(maxBytes, signal, resolve, reject);
    const { url } = request;
    dispatcher.dispatch(
      { origin: url.origin, path: url.pathname + url.search, method: request.method, headers: request.headers, body: request.body },
      reader,
    );
  });
}

/**
 * undici's handler of one exchange. The body is abandoned as soon as more
 * than `maxBytes` have arrived (after decoding, so a small compressed bomb is
 * stopped too): the request is aborted, which closes the socket instead of
 * downloading the rest. A Content-Length above the cap is refused before a
 * byte is read. We never ask for compression (no Accept-Encoding), but gzip,
 * deflate and br are decoded in case a proxy sends them anyway (the cap then
 * counts the encoded bytes as well as the decoded ones); other encodings are
 * refused. Error bodies are read too: an unread body keeps its
 * socket from returning to the pool.
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private received = 0;
  private decoder: Transform | undefined;
  private settled = false;

  constructor(
    private readonly maxBytes: number,
    private readonly signal: DeadlineTick,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    signal.on('abort', this.onDeadline);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // A request that waited in the pool past its deadline is dropped before it is written.
    if (this.settled) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: informational, the answer follows
    this.status = statusCode;
    this.headers = headers;
    const declared = Number(single(headers['content-length']));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      this.unreadable(`body of ${declared} bytes is larger than the ${this.maxBytes}-byte cap (UPSTREAM_MAX_RESPONSE_BYTES)`);
      return;
    }
    const encoding = single(headers['content-encoding'])?.trim().toLowerCase() ?? '';
    if (encoding === '' || encoding === 'identity') return;
    const decoder = decoderFor(encoding);
    if (decoder === undefined) {
      this.unreadable(`content-encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported`);
      return;
    }
    this.decoder = decoder;
    decoder.on('data', (chunk: Buffer) => this.take(chunk));
    decoder.on('end', () => this.finish());
    decoder.on('error', () => this.unreadable('compressed body could not be decoded'));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.decoder === undefined) {
      this.take(chunk);
      return;
    }
    // The encoded bytes count too: a stream that decodes to little (empty deflate blocks) would otherwise
    // pile up in the decoder, which this reader feeds without waiting for it.
    this.received += chunk.length;
    if (this.received > this.maxBytes)
      this.unreadable(`compressed body is more than the ${this.maxBytes}-byte cap (UPSTREAM_MAX_RESPONSE_BYTES)`);
    else this.decoder.write(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.decoder === undefined) this.finish();
    else this.decoder.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settle()) this.reject(error);
  }

  private readonly onDeadline = (): void => {
    if (!this.settle()) return;
    this.reject(this.signal.reason);
    this.controller?.abort(this.signal.reason as Error);
  };

  private take(chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.size > this.maxBytes) this.unreadable(`body is more than the ${this.maxBytes}-byte cap (UPSTREAM_MAX_RESPONSE_BYTES)`);
    else this.chunks.push(chunk);
  }

  private finish(): void {
    if (!this.settle()) return;
    const text = this.chunks.length === 1 ? this.chunks[0].toString('utf8') : Buffer.concat(this.chunks, this.size).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, text });
  }

  /** Answers with the status and headers but no text, and stops all work on the rest: no download, no inflating. */
  private unreadable(reason: string): void {
    if (!this.settle()) return;
    this.resolve({ status: this.status, headers: this.headers, text: '', unreadable: reason });
    this.controller?.abort(new Error(reason));
  }

  /** True the first time: the exchange's outcome is decided once, and the deadline no longer listened to. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.signal.removeListener('abort', this.onDeadline);
    this.decoder?.destroy();
    return true;
  }
}

function decoderFor(name: string): Transform | undefined {
  if (name === 'gzip' || name === 'x-gzip') return createGunzip();
  if (name === 'deflate') return createInflate();
  if (name === 'br') return createBrotliDecompress();
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
