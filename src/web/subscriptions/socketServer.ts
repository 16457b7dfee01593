import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols, makeServer, type Disposable, type ServerOptions } from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../../observability/logger';

/** What graphql-ws keeps per socket beside its own context: the socket, and its upgrade request until the connection is admitted. */
export interface SocketExtra {
  socket: WebSocket;
  /** Let go once the connection's admission is decided: its headers (a kilobyte or two a socket) are read no more. */
  request: IncomingMessage | undefined;
}

export interface SocketWatch {
  /** SUBSCRIPTION_KEEPALIVE_SECONDS: each socket is pinged and checked this often. */
  keepAliveMs: number;
  /** SUBSCRIPTION_MAX_BUFFERED_BYTES: unsent bytes past which a socket's consumer is too slow. */
  maxBufferedBytes: number;
  /** Whether the socket carries a subscription now (a silent socket without one is not a consumer: it is terminated). */
  carriesSubscriptions(socket: WebSocket): boolean;
  /** A consumer too slow: its socket is closed with 1013 (`unansweredPing`: it stopped reading, whatever the kernel buffered). */
  slowConsumer(socket: WebSocket, seen: { bufferedBytes: number; unansweredPing: boolean }): void;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** ws's codes for a frame the client got wrong (too large, malformed): the client's problem, told without a stack. */
const CLIENT_FRAME_ERRORS = new Set([
  'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
  'WS_ERR_INVALID_UTF8',
  'WS_ERR_INVALID_OPCODE',
  'WS_ERR_INVALID_CLOSE_CODE',
  'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH',
  'WS_ERR_EXPECTED_FIN',
  'WS_ERR_EXPECTED_MASK',
  'WS_ERR_UNEXPECTED_MASK',
  'WS_ERR_UNEXPECTED_RSV_1',
  'WS_ERR_UNEXPECTED_RSV_2_3',
]);

/**
 * graphql-ws's protocol (`makeServer`) on `ws` sockets: what graphql-ws's own
 * `useServer` does, with the replica's rules in place of its defaults.
 * - Errors go through the logger at their level: a client's bad frame (over
 *   the message cap, malformed) is a warning without a stack (ws closes the
 *   socket itself, 1009 or 1002); an error of ours is an error. graphql-ws's
 *   `useServer` wrote each to stderr with its stack, outside LOG_LEVEL.
 * - Each socket is pinged every `keepAliveMs`; at the next look, a socket
 *   with more than `maxBufferedBytes` unsent, or that left the ping
 *   unanswered while it carries a subscription, is a slow consumer (1013,
 *   counted). The kernel's buffers can take megabytes a paused client never
 *   reads, so unsent bytes alone may never pass the bound: the unanswered
 *   ping does not depend on them. A silent socket without a subscription is
 *   terminated (a dead peer), as graphql-ws's keepalive did.
 * - Unsent bytes are also checked after every write, not only before the
 *   next emission.
 * - Each message graphql-ws made goes through `outgoing` before it is sent
 *   (./nextPayloads.ts puts a shared payload's text in it).
 */
export function serveSockets<P extends Record<string, unknown>>(
  wss: WebSocketServer,
  options: ServerOptions<P, SocketExtra>,
  watch: SocketWatch,
  outgoing: (data: string) => string = (data) => data,
): Disposable {
  const server = makeServer<P, SocketExtra>(options);
  wss.options.handleProtocols = handleProtocols;
  wss.on('error', (error) => watch.logger.error({ err: error }, 'subscription socket server failed'));
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.on('error', (error) => logSocketError(watch.logger, error));
    const tooMuchUnsent = () => socket.readyState === socket.OPEN && socket.bufferedAmount > watch.maxBufferedBytes;
    let awaitingPong = false;
    socket.on('pong', () => (awaitingPong = false));
    const heartbeat = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      if (awaitingPong && !watch.carriesSubscriptions(socket)) return void socket.terminate();
      if (awaitingPong || tooMuchUnsent()) {
        watch.slowConsumer(socket, { bufferedBytes: socket.bufferedAmount, unansweredPing: awaitingPong });
        return;
      }
      awaitingPong = true;
      socket.ping();
    }, watch.keepAliveMs);
    heartbeat.unref();
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => {
          // Made into the message to send now, in the step that made it (a shared payload's text is held only until then).
          const message = outgoing(data);
          return new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(message, (error) => (error === undefined || error === null ? resolve() : reject(error)));
            if (tooMuchUnsent()) watch.slowConsumer(socket, { bufferedBytes: socket.bufferedAmount, unansweredPing: false });
          });
        },
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              watch.logger.error({ err: error }, 'subscription socket: a message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearInterval(heartbeat);
      void closed(code, String(reason));
    });
  });
  return {
    async dispose() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error === undefined ? resolve() : reject(error))));
    },
  };
}

function logSocketError(logger: SocketWatch['logger'], error: Error): void {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CLIENT_FRAME_ERRORS.has(code)) {
    logger.warn({ code, problem: error.message, ...maxBytesOf(code) }, 'subscription socket: message refused');
    return;
  }
  logger.error({ err: error }, 'subscription socket failed');
}

/** The message cap, named in the line of a message over it. */
function maxBytesOf(code: string): { maxBytes?: number } {
  return code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? { maxBytes: MAX_MESSAGE_BYTES } : {};
}

/** A subscribe message carries a document and variables only: far less than an HTTP body may. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
