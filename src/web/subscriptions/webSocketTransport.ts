import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApolloServer, GraphQLRequest } from '@apollo/server';
import { GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { CloseCode, type Context as SocketContext, type Disposable, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { refusalArgs } from './refusalResult';
import type { SubscriptionsConfig } from '../../config';
import type { Context } from '../../operation/context';
import { ErrorCode } from '../../kernel/failures/errorCodes';
import type { SocketSubscriptions, SubscribedOperation } from '../../graphql/subscriptions/socketSubscriptions';
import type { Logger } from '../../observability/logger';
import type { Observer } from '../../kernel/observer';
import type { SubscriptionGate, UpgradeRefusal } from './gate';
import { IdleSockets } from './idleSockets';
import { NextPayloads } from './nextPayloads';
import type { ReclaimAfterFlood } from './reclaimAfterFlood';
import { closeWhenTokenExpires } from './socketExpiry';
import { StartRate } from './startRate';
import { StartTurns, TOO_MANY_WAITING } from './startTurns';
import { MAX_MESSAGE_BYTES, serveSockets, type SocketExtra as BaseExtra } from './socketServer';

/** 1013 Try Again Later (RFC 6455 registry): the consumer fell too far behind; a reconnect starts it afresh. */
const SLOW_CONSUMER_CLOSE_CODE = 1013;
/** RFC 6455: a close frame's payload is 125 bytes, 2 of them the code. */
const MAX_CLOSE_REASON_BYTES = 123;

export interface WebSocketTransportOptions<Admission> {
  httpServer: Server;
  path: string;
  apollo: ApolloServer<Context>;
  sockets: SocketSubscriptions;
  /** A fresh per-operation context for one subscription, given its connection's admission. */
  contextFor(admission: Admission): Context;
  gate: SubscriptionGate<Admission>;
  config: SubscriptionsConfig;
  /** Errors as clients see them (formatError: codes, redaction). */
  formatError(error: GraphQLError): ReturnType<GraphQLError['toJSON']>;
  /** Upgrades are refused (503) while this is true: the replica is starting or draining. */
  refusing(): boolean;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The process's one observer: starts, drops, refused and idle sockets are reported to it. */
  observer: Pick<Observer, 'subscribeStarted' | 'subscriberDropped' | 'socketRefused' | 'socketClosed'>;
  /** Told each subscription that ends: a flood of them is collected once it is over. */
  reclaim: ReclaimAfterFlood;
}

export interface WebSocketTransport {
  /** Closes every socket with 1001 Going Away (clients reconnect, to another replica) and stops accepting. */
  drain(): Promise<void>;
}

/** What graphql-ws keeps per socket beside the socket itself: the connection's admission by the gate. */
interface SocketExtra<Admission> extends BaseExtra {
  admission?: Admission;
}

/**
 * Subscriptions over WebSocket on /graphql with `graphql-transport-ws`
 * (graphql-ws): the protocol Apollo Router's passthrough mode and Hive
 * Gateway speak. Each subscribe message goes through Apollo Server's own
 * pipeline (src/graphql/subscriptions/socketSubscriptions.ts); the socket
 * layer adds the caller gate, the per-connection cap, the per-socket rate of
 * starts (SUBSCRIPTION_STARTS_PER_SECOND) and the replica's pace of starts
 * (./startTurns.ts: a few per turn of the event loop, a start ended before
 * its turn skipped), the slow-consumer drop, and formats every error as HTTP
 * responses do. The sockets
 * themselves (keepalive, slow consumers, errors to the logger) are served by
 * ./socketServer.ts; MAX_SOCKETS is checked on the upgrade, and an idle
 * socket (no subscription) is closed after SUBSCRIPTION_IDLE_TIMEOUT_SECONDS.
 */
export function attachWebSocketTransport<Admission>(options: WebSocketTransportOptions<Admission>): WebSocketTransport {
  // One frame a socket a turn of the event loop (ws ≥ 8.16): by default ws emits every frame of one read at once, and a
  // flood of 200 sockets' reads was ~20,000 frames parsed and queued before a health check's read (issue 35). A
  // flooding client is slowed to the pace it is read at.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, allowSynchronousEvents: false });
  const { config } = options;
  // The stream Apollo's pipeline subscribed to, or the refusal to send, by a key object graphql-ws passes back as the context.
  const streams = new WeakMap<object, AsyncIterable<ExecutionResult> | ExecutionResult>();
  // A refusal is a result carrying its errors, then `complete`, as an HTTP request's refusal is a response with errors:
  // routers read an `error` message as a transport failure (Hive Gateway answers "Unexpected error.").
  const refuse = (errors: readonly GraphQLError[]): ExecutionArgs => {
    const args = refusalArgs();
    streams.set(args.contextValue as object, { errors });
    return args;
  };
  // graphql-ws's context of each acknowledged socket: the subscriptions it carries.
  const contexts = new WeakMap<WebSocket, SocketContext<Record<string, unknown>, SocketExtra<Admission>>>();
  const carriesSubscriptions = (socket: WebSocket) => Object.keys(contexts.get(socket)?.subscriptions ?? {}).length > 0;
  const rate = new StartRate(config.startsPerSecond, Math.max(config.startsPerSecond, config.maxPerConnection));
  const turns = new StartTurns(config.maxSubscriptions);
  const idle = new IdleSockets(config.idleTimeoutMs, carriesSubscriptions, () => options.observer.socketClosed('idle'));
  // One payload object and JSON text per shared result: every subscriber of a feed and selection is sent the same text.
  const payloads = new NextPayloads(options.formatError);
  const server: Disposable = serveSockets<Record<string, unknown>>(
    wss,
    {
      jsonMessageReplacer: payloads.replacer,
      onConnect: async (ctx) => {
        const request = ctx.extra.request;
        if (request === undefined) return false;
        ctx.extra.request = undefined;
        const admission = await options.gate.admitConnection(request, ctx.connectionParams);
        if ('refused' in admission) {
          // Closed here with the problem named (graphql-ws's own refusal would say only "Forbidden"); its close then does nothing.
          ctx.extra.socket.close(CloseCode.Forbidden, closeReason(admission.refused));
          return false;
        }
        (ctx.extra as SocketExtra<Admission>).admission = admission.admitted;
        if (admission.expiresAt !== undefined) closeWhenTokenExpires(ctx.extra.socket, admission.expiresAt);
        contexts.set(ctx.extra.socket, ctx);
        idle.watch(ctx.extra.socket);
        return true;
      },
      onSubscribe: async (ctx, id, payload) => {
        idle.stop(ctx.extra.socket);
        const extra = ctx.extra as SocketExtra<Admission>;
        const waitMs = rate.take(ctx.extra.socket);
        if (waitMs !== undefined) {
          options.observer.subscribeStarted('refused_rate');
          return refuse([startRateError(rate, waitMs)]);
        }
        if (Object.keys(ctx.subscriptions).length > config.maxPerConnection) {
          return refuse([
            new GraphQLError(
              `Subscription refused: this connection carries its maximum of ${config.maxPerConnection} subscriptions (MAX_SUBSCRIPTIONS_PER_CONNECTION)`,
              { extensions: { code: ErrorCode.SUBSCRIPTION_LIMIT, limit: 'MAX_SUBSCRIPTIONS_PER_CONNECTION' } },
            ),
          ]);
        }
        const started = await turns.run(async () => {
          // Completed (or its socket closed) while it waited: nothing to start, and graphql-ws sends nothing for it.
          if (!(id in ctx.subscriptions)) return ABANDONED;
          const admission = extra.admission as Admission;
          const contextForEvent = () => options.contextFor(admission);
          return await options.sockets.subscribe(options.apollo, apolloRequest(payload), contextForEvent(), contextForEvent);
        });
        if (started === TOO_MANY_WAITING) {
          options.observer.subscribeStarted('refused_waiting');
          return refuse([
            new GraphQLError(
              `Subscription refused: this replica has ${config.maxSubscriptions} subscriptions waiting to start (MAX_SUBSCRIPTIONS); try again later`,
              { extensions: { code: ErrorCode.SUBSCRIPTION_LIMIT, limit: 'MAX_SUBSCRIPTIONS' } },
            ),
          ]);
        }
        if (started === ABANDONED) {
          options.observer.subscribeStarted('abandoned');
          // Nothing to send: graphql-ws sends no result for a subscription that is no longer there.
          return refuse([]);
        }
        options.observer.subscribeStarted('pipeline');
        if (Array.isArray(started)) return refuse(started);
        const operation = started as SubscribedOperation;
        if (!isAsyncIterable(operation.result)) return refuse(operation.result.errors ?? []);
        // graphql-ws keeps its arguments as long as the subscription lives: a key of the stream, not the subscribe's context.
        const key = {};
        streams.set(key, operation.result);
        const args: ExecutionArgs = {
          schema: operation.schema,
          document: operation.document,
          contextValue: key,
          ...(operation.operationName === undefined ? {} : { operationName: operation.operationName }),
        };
        return args;
      },
      // The stream Apollo's pipeline already subscribed to (by onSubscribe), or the refusal: graphql-ws only reads it.
      subscribe: (args) => {
        const stream = typeof args.contextValue === 'object' && args.contextValue !== null ? streams.get(args.contextValue) : undefined;
        if (stream === undefined) throw new Error('subscribe: no subscription was started for this message');
        return stream;
      },
      onNext: (_ctx, _id, _payload, _args, result) => payloads.payloadOf(result),
      onError: (ctx, _id, _payload, errors) => {
        idle.ended(ctx.extra.socket);
        return errors.map((error) => options.formatError(error));
      },
      // Every subscription that was started ends here (graphql-ws completes it after an error too).
      onComplete: (ctx) => {
        idle.ended(ctx.extra.socket);
        options.reclaim.subscriptionEnded();
      },
      onClose: (ctx) => idle.stop(ctx.extra.socket),
    },
    {
      keepAliveMs: config.keepAliveMs,
      maxBufferedBytes: config.maxBufferedBytes,
      carriesSubscriptions,
      slowConsumer: (socket, seen) => {
        options.observer.subscriberDropped('slow_consumer');
        options.logger.warn(
          { bufferedBytes: seen.bufferedBytes, maxBufferedBytes: config.maxBufferedBytes, unansweredPing: seen.unansweredPing },
          'subscriber dropped: slow consumer',
        );
        socket.close(SLOW_CONSUMER_CLOSE_CODE, seen.unansweredPing ? 'Slow consumer: stopped reading' : 'Slow consumer: too much unsent');
      },
      logger: options.logger,
    },
    (data) => payloads.message(data),
  );
  // Upgrades between the cap's check and their socket's registration count against MAX_SOCKETS too.
  let upgrading = 0;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    void upgrade(request, socket, head);
  };
  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    if (pathOf(request.url) !== options.path) {
      return refuseUpgrade(socket, { status: 404, code: ErrorCode.NOT_FOUND, message: 'Not found: subscriptions are served at /graphql' });
    }
    if (options.refusing()) {
      return refuseUpgrade(socket, {
        status: 503,
        code: ErrorCode.SERVICE_UNAVAILABLE,
        message: 'The subgraph is not serving: try another replica',
      });
    }
    if (wss.clients.size + upgrading >= config.maxSockets) {
      options.observer.socketRefused('max_sockets');
      return refuseUpgrade(socket, {
        status: 503,
        code: ErrorCode.SERVICE_UNAVAILABLE,
        message: `This replica carries its maximum of ${config.maxSockets} open sockets (MAX_SOCKETS): connect again to reach another replica`,
      });
    }
    upgrading += 1;
    try {
      const refusal = await options.gate.admitUpgrade(request);
      if (refusal !== undefined) return refuseUpgrade(socket, refusal);
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    } finally {
      upgrading -= 1;
    }
  };
  options.httpServer.on('upgrade', onUpgrade);
  return {
    async drain() {
      options.httpServer.off('upgrade', onUpgrade);
      const open = [...wss.clients].length;
      if (open > 0) options.logger.info({ sockets: open }, 'closing subscription sockets: 1001 Going Away');
      await server.dispose();
    },
  };
}

/** What a start finds when its subscription ended before its turn. */
const ABANDONED = Symbol('abandoned');

/** A subscribe message's payload as Apollo's request. A client's `extensions.subscription` would start a callback subscription from a socket: only the rest is kept. */
function apolloRequest(payload: SubscribePayload): GraphQLRequest {
  const { subscription: _callback, ...extensions } = payload.extensions ?? {};
  return {
    query: payload.query,
    ...(payload.operationName == null ? {} : { operationName: payload.operationName }),
    ...(payload.variables == null ? {} : { variables: payload.variables }),
    extensions,
  };
}

function startRateError(rate: StartRate, waitMs: number): GraphQLError {
  const plural = rate.perSecond === 1 ? '' : 's';
  return new GraphQLError(
    `Subscription refused: this connection started more than ${rate.perSecond} subscription${plural} a second after a burst of ${rate.burst} (SUBSCRIPTION_STARTS_PER_SECOND); try again later`,
    { extensions: { code: ErrorCode.SUBSCRIPTION_LIMIT, limit: 'SUBSCRIPTION_STARTS_PER_SECOND', retryAfter: Math.ceil(waitMs / 1000) } },
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** A WebSocket close reason is at most 123 bytes (RFC 6455 §5.5): a longer problem is cut, on a character. */
function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_CLOSE_REASON_BYTES) return reason;
  let cut = reason.slice(0, MAX_CLOSE_REASON_BYTES - 1);
  while (Buffer.byteLength(`${cut}…`) > MAX_CLOSE_REASON_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function refuseUpgrade(socket: Duplex, { status, code, message }: UpgradeRefusal): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Refused'}\r\n` +
      'connection: close\r\ncontent-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function pathOf(url = '/'): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
