import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError } from 'graphql';
import type { Context } from '../operation/context';
import type { Logger } from './logger';
import { UpstreamError } from '../upstream/failures/upstreamError';
import { operationOutcome, sentErrorCodes } from './operationOutcome';
import { analyticsAskFields } from './analyticsAsks';

type OperationLogger = Pick<Logger, 'debug' | 'info' | 'error'>;

/**
 * One info line per GraphQL operation: its name, type, duration, outcome,
 * the upstream calls it made (and was refused) and its cache hits, the same
 * story the metrics tell. Never the variables or the query text: they carry
 * reader ids and could carry anything a client pastes in. Unexpected errors
 * (bugs) are additionally logged at error with their stack.
 */
export function operationLogPlugin(
  logger: OperationLogger,
  now: () => number = performance.now.bind(performance),
): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ contextValue }) {
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
        async willSendResponse({ operationName, operation, response, metrics }) {
          const codes = sentErrorCodes(response.body);
          const allowance = contextValue.allowance;
          const entry = {
            operationName: operationName ?? null,
            operationType: operation?.operation ?? null,
            durationMs: Math.round((now() - startedAt) * 10) / 10,
            status: response.http.status ?? 200,
            outcome: operationOutcome(codes),
            upstreamCalls: allowance?.calls ?? 0,
            ...(allowance !== undefined && allowance.refusedCalls > 0 ? { refusedUpstreamCalls: allowance.refusedCalls } : {}),
            cacheHits: allowance?.cacheHits ?? 0,
            ...analyticsAskFields(contextValue.askOutcomes),
            // Answered whole by the response cache (src/graphql/responseCache/): nothing executed, so no calls.
            ...(metrics.responseCacheHit === true ? { responseCacheHit: true } : {}),
            ...(codes.length > 0 ? { errorCodes: [...new Set(codes)] } : {}),
          };
          logger.info(entry, codes.length > 0 ? 'graphql operation failed' : 'graphql operation');
        },
      };
    },
  };
}
