import type { Server } from 'node:http';
import type { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginSubscriptionCallback } from '@apollo/server/plugin/subscriptionCallback';
import type { GraphQLError } from 'graphql';
import type { SubscriptionsConfig } from '../../config';
import type { Context } from '../../operation/context';
import { LiveNumbers } from '../../reporting/live/liveNumbers';
import { SocketSubscriptions } from '../../graphql/subscriptions/socketSubscriptions';
import type { Logger } from '../../observability/logger';
import type { Observer } from '../../kernel/observer';
import type { Clock } from '../../kernel/clock';
import type { TableRefreshes } from '../../reporting/tables/refreshes';
import { withCallbackUrlPolicy } from './callbackUrls';
import type { SubscriptionGate } from './gate';
import { ReclaimAfterFlood, type CollectGarbage } from './reclaimAfterFlood';
import { attachWebSocketTransport, type WebSocketTransport } from './webSocketTransport';

export interface LiveServingOptions {
  config: SubscriptionsConfig;
  askDeadlineMs: number;
  dashboardTtlSeconds: number;
  /** The tables' writes: the reporting service's store is watched through it (and the Redis channel, with replicas). */
  refreshes: TableRefreshes;
  /** The feeds' pulse clock: the process's one clock (tests: their fake one). */
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** The process's one observer: subscriptions, their events, drops, sockets and starts are reported to it. */
  observer: Observer;
  /** A major collection after a flood of ended subscriptions (./reclaimAfterFlood.ts); undefined, V8 collects in its own time. */
  collectGarbage: CollectGarbage | undefined;
}

/**
 * Everything the server needs for subscriptions, built once per process (src/app/composeServices.ts): the
 * hub the Subscription fields read, the Apollo plugins (WebSocket
 * subscriptions through the pipeline; Apollo's HTTP callback protocol; the
 * drain), and the WebSocket transport, attached once Apollo exists.
 */
export class LiveServing {
  readonly refreshes: TableRefreshes;
  readonly live: LiveNumbers;
  private readonly sockets = new SocketSubscriptions();
  private transport: WebSocketTransport | undefined;

  constructor(private readonly options: LiveServingOptions) {
    this.refreshes = options.refreshes;
    this.live = new LiveNumbers({
      refreshes: this.refreshes,
      clock: options.clock,
      askDeadlineMs: options.askDeadlineMs,
      dashboardTtlSeconds: options.dashboardTtlSeconds,
      maxSubscriptions: options.config.maxSubscriptions,
      observer: options.observer,
    });
  }

  plugins(): ApolloServerPlugin<Context>[] {
    const drain: ApolloServerPlugin<Context> = {
      serverWillStart: async () => ({
        drainServer: async () => {
          // Sockets first, with 1001 Going Away, so clients reconnect elsewhere rather than read a `complete` as the end.
          const open = this.live.open;
          await this.transport?.drain();
          this.live.close();
          for (let dropped = 0; dropped < open; dropped += 1) this.options.observer.subscriberDropped('shutdown');
        },
      }),
    };
    return [
      this.sockets.plugin(),
      // A callbackUrl outside SUBSCRIPTION_CALLBACK_URLS never reaches Apollo's plugin: nothing is sent to it.
      withCallbackUrlPolicy(
        ApolloServerPluginSubscriptionCallback({ logger: this.options.logger }) as ApolloServerPlugin<Context>,
        this.options.config.callbackUrls,
      ),
      drain,
    ];
  }

  /** Serves `graphql-transport-ws` upgrades on `path` of the HTTP server. */
  attach<Admission>(options: {
    httpServer: Server;
    path: string;
    apollo: ApolloServer<Context>;
    contextFor(admission: Admission): Context;
    gate: SubscriptionGate<Admission>;
    formatError(error: GraphQLError): ReturnType<GraphQLError['toJSON']>;
    refusing(): boolean;
  }): void {
    this.transport = attachWebSocketTransport({
      ...options,
      sockets: this.sockets,
      reclaim: new ReclaimAfterFlood(this.options.collectGarbage, (ended) =>
        this.options.logger.info({ ended }, 'a flood of subscriptions is over: collecting its garbage'),
      ),
      config: this.options.config,
      logger: this.options.logger,
      observer: this.options.observer,
    });
  }
}
