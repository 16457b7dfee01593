import type { ApolloServerPlugin, GraphQLResponse } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError } from 'graphql';
import type { Logger } from './logger';
import { UpstreamError } from './http/upstreamError';

type OperationLogger = Pick<Logger, 'debug' | 'info' | 'error'>;

/**
 * One log line per GraphQL operation: its name, type, duration and error
 * codes. Never the variables or the query text: they carry reader ids and
 * could carry anything a client pastes in. Successful operations log at
 * debug (they are the bulk of the traffic), failed ones at info, and
 * unexpected errors (bugs) additionally at error with their stack.
 */
export function operationLogPlugin(logger: OperationLogger, now: () => number = performance.now.bind(performance)): ApolloServerPlugin {
  return {
    async requestDidStart() {
      const startedAt = now();
      return {
        async didEncounterErrors({ errors }) {
          for (const error of errors) {
            const original = unwrapResolverError(error);
            if (!(original instanceof GraphQLError) && !(original instanceof UpstreamError)) {
              logger.error({ err: original, path: error.path }, 'unexpected error while executing an operation');
            }
          }
        },
        async willSendResponse({ operationName, operation, response }) {
          const codes = sentErrorCodes(response.body);
          const entry = {
            operationName: operationName ?? null,
            operationType: operation?.operation ?? null,
            durationMs: Math.round((now() - startedAt) * 10) / 10,
            status: response.http.status ?? 200,
            ...(codes.length > 0 ? { errorCodes: [...new Set(codes)] } : {}),
          };
          if (codes.length > 0) logger.info(entry, 'graphql operation failed');
          else logger.debug(entry, 'graphql operation');
        },
      };
    },
  };
}

/** The codes as the client sees them, i.e. after formatError. */
function sentErrorCodes(body: GraphQLResponse['body']): string[] {
  const errors = body.kind === 'single' ? body.singleResult.errors : body.initialResult.errors;
  return (errors ?? []).map((error) => String(error.extensions?.code ?? 'UNKNOWN'));
}
