import type { ApolloServer, ApolloServerPlugin, GraphQLRequest } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import {
  GraphQLError,
  createSourceEventStream,
  execute as executeEvent,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { Context } from '../../operation/context';
import { ErrorCode } from '../../kernel/failures/errorCodes';
import { mapEvents, SharedExecutions } from './sharedExecutions';

/** What a subscribe message became once Apollo's pipeline let it through. */
export interface SubscribedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName: string | undefined;
  /** The subscriber's stream, or graphql's refusal (e.g. a cap) as errors. */
  result: AsyncIterable<ExecutionResult> | ExecutionResult;
}

const SLOT = Symbol('socketSubscription');
interface Slot {
  /** A fresh context for one execution of an event (the subscription's own is let go once it subscribed). */
  contextForEvent: () => Context;
  subscribed?: SubscribedOperation;
}
type SlottedContext = Context & { [SLOT]?: Slot };

/**
 * WebSocket subscriptions through Apollo Server's own request pipeline: a
 * subscribe message is sent to `executeOperation`, so it is parsed,
 * validated (every limit rule), checked by every plugin (persisted-only,
 * the operation log, …) like an HTTP request; then, instead of executing
 * it, this plugin subscribes (graphql-js `createSourceEventStream`, each
 * event then executed once for every subscriber alike: ./sharedExecutions.ts)
 * and hands the stream to the socket. The same way Apollo's callback plugin
 * serves subscriptions, but for the shared executions.
 * Only subscriptions: a query or mutation belongs on HTTP (the response cache,
 * cache hints and headers live there).
 */
export class SocketSubscriptions {
  private readonly executions = new SharedExecutions();

  plugin(): ApolloServerPlugin<Context> {
    const executions = this.executions;
    return {
      async requestDidStart({ contextValue }) {
        const slot = (contextValue as SlottedContext)[SLOT];
        if (slot === undefined) return;
        return {
          async responseForOperation({ operation, document, schema, request, operationName }) {
            if (operation.operation !== 'subscription') {
              const error = new GraphQLError('Only subscriptions are served over WebSocket; send queries and mutations over HTTP', {
                extensions: { code: ErrorCode.BAD_USER_INPUT },
              });
              return {
                http: { status: 400, headers: new HeaderMap() },
                body: { kind: 'single', singleResult: { errors: [error.toJSON()] } },
              };
            }
            const args: ExecutionArgs = {
              schema,
              document,
              variableValues: request.variables ?? {},
              contextValue,
              operationName: operationName ?? undefined,
            };
            const events = await createSourceEventStream(args);
            const key = executions.keyOf(args, contextValue.caller);
            // Each event runs on a context of its own, as each HTTP operation does: what a subscriber keeps for its
            // whole life is the way to make one, not a context (its loaders, read path, allowance) per subscriber.
            const { contextForEvent } = slot;
            const eventArgs = { ...args, contextValue: undefined };
            const execute = (event: unknown) => executeEvent({ ...eventArgs, contextValue: contextForEvent(), rootValue: event });
            const result = isAsyncIterable(events)
              ? mapEvents(events, (event) => executions.resultOf(event, key, () => execute(event)))
              : events;
            slot.subscribed = { schema, document, operationName: operationName ?? undefined, result };
            return { http: { status: 200, headers: new HeaderMap() }, body: { kind: 'single', singleResult: { data: null } } };
          },
        };
      },
    };
  }

  /** Runs one subscribe message through Apollo: the subscription, or the errors a client must see (formatted by Apollo's formatError). */
  async subscribe(
    apollo: ApolloServer<Context>,
    request: GraphQLRequest,
    context: Context,
    contextForEvent: () => Context,
  ): Promise<SubscribedOperation | GraphQLError[]> {
    const slot: Slot = { contextForEvent };
    // On the context itself: Apollo runs each operation on a shallow copy of the one given, which keeps this key.
    (context as SlottedContext)[SLOT] = slot;
    try {
      const response = await apollo.executeOperation(request, { contextValue: context });
      if (slot.subscribed !== undefined) return slot.subscribed;
      const errors = response.body.kind === 'single' ? (response.body.singleResult.errors ?? []) : [];
      if (errors.length === 0)
        return [new GraphQLError('The subscription was not started', { extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } })];
      return errors.map(
        (error) => new GraphQLError(error.message, { ...(error.extensions === undefined ? {} : { extensions: error.extensions }) }),
      );
    } finally {
      delete (context as SlottedContext)[SLOT];
    }
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
