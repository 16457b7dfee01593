import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError } from 'graphql';
import type { Context } from '../operation/context';
import { isLimitCode } from './limits/codes';
import type { Observer } from '../kernel/observer';
import { UpstreamError } from '../kernel/failures/upstreamError';
import { AllowanceExceeded } from '../operation/upstreamAllowance';
import { ReadForbidden } from '../reporting/reads/readForbidden';
import { operationOutcome, sentErrorCodes } from '../observability/operationOutcome';

export interface OperationPluginOptions {
  /** The process's one observer: the operation log writes its line from it, the metrics count it. */
  observer: Pick<Observer, 'operationFinished' | 'unexpectedError'>;
  now: () => number;
}

/**
 * The operation's record, made once as the response leaves: its outcome,
 * duration, upstream calls (and refused ones), cache hits, analytics asks and
 * the client name the request carried (a label: `apollographql-client-name`)
 * go to the one observer, whose log line and metrics (with every limit it hit)
 * tell the same story. Unexpected errors (bugs) go to it too, with their stack.
 */
export function operationPlugin({ observer, now }: OperationPluginOptions): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ contextValue }) {
      const startedAt = now();
      return {
        async didEncounterErrors({ errors }) {
          for (const error of errors) {
            const original = unwrapResolverError(error);
            if (!isExpected(original)) observer.unexpectedError(original, error.path);
          }
        },
        async willSendResponse({ operationName, operation, response, metrics: requestMetrics }) {
          const errorCodes = sentErrorCodes(response.body);
          const allowance = contextValue.allowance;
          const clientName = contextValue.caller?.clientName;
          observer.operationFinished({
            name: operationName ?? null,
            type: operation?.operation ?? null,
            ...(clientName === undefined ? {} : { clientName }),
            durationMs: now() - startedAt,
            status: response.http.status ?? 200,
            outcome: operationOutcome(errorCodes),
            errorCodes,
            limitCodes: errorCodes.filter(isLimitCode),
            upstreamCalls: allowance?.calls ?? 0,
            refusedUpstreamCalls: allowance?.refusedCalls ?? 0,
            cacheHits: allowance?.cacheHits ?? 0,
            analyticsAsks: contextValue.askOutcomes ?? [],
            // Answered whole by the response cache (src/graphql/responseCache/): nothing executed, so no calls.
            responseCacheHit: requestMetrics.responseCacheHit === true,
          });
        },
      };
    },
  };
}

/** Errors with a code of their own; anything else is a bug. */
function isExpected(error: unknown): boolean {
  return (
    error instanceof GraphQLError || error instanceof UpstreamError || error instanceof AllowanceExceeded || error instanceof ReadForbidden
  );
}
