import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError } from 'graphql';
import type { Context } from '../operation/context';
import { isLimitCode } from './limits/codes';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics/metrics';
import { UpstreamError } from '../kernel/failures/upstreamError';
import { AllowanceExceeded } from '../operation/upstreamAllowance';
import { ReadForbidden } from '../reporting/reads/readForbidden';
import { operationOutcome, sentErrorCodes } from '../observability/operationOutcome';
import { analyticsAskFields } from '../observability/analyticsAsks';

type OperationLogger = Pick<Logger, 'debug' | 'info' | 'error'>;
type OperationMetrics = Pick<Metrics, 'recordOperation' | 'recordLimitRefusal'>;

export interface OperationPluginOptions {
  logger: OperationLogger;
  /** Absent when metrics are off: the log line is still written. */
  metrics?: OperationMetrics;
  now: () => number;
}

/**
 * The operation's record, written once as the response leaves: its outcome,
 * duration and upstream calls are computed once, then go to one info line
 * (the log) and to the metrics (with every limit it hit), so both tell the
 * same story. The log line has the name, type, duration, outcome, the
 * upstream calls made (and refused), the cache hits and the client name the
 * request carried (a label: `apollographql-client-name`); never the variables
 * or the query text: they carry reader ids and could carry anything a client
 * pastes in. Unexpected errors (bugs) are also logged at error with their stack.
 */
export function operationPlugin({ logger, metrics, now }: OperationPluginOptions): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ contextValue }) {
      const startedAt = now();
      return {
        async didEncounterErrors({ errors }) {
          for (const error of errors) {
            const original = unwrapResolverError(error);
            if (!isExpected(original)) {
              logger.error({ err: original, path: error.path }, 'unexpected error while executing an operation');
            }
          }
        },
        async willSendResponse({ operationName, operation, response, metrics: requestMetrics }) {
          const durationMs = now() - startedAt;
          const codes = sentErrorCodes(response.body);
          const outcome = operationOutcome(codes);
          const allowance = contextValue.allowance;
          const upstreamCalls = allowance?.calls ?? 0;
          const clientName = contextValue.caller?.clientName;
          const entry = {
            operationName: operationName ?? null,
            // The router-forwarded client name: a label to tell callers apart in the logs, never an identity.
            ...(clientName === undefined ? {} : { clientName }),
            operationType: operation?.operation ?? null,
            durationMs: Math.round(durationMs * 10) / 10,
            status: response.http.status ?? 200,
            outcome,
            upstreamCalls,
            ...(allowance !== undefined && allowance.refusedCalls > 0 ? { refusedUpstreamCalls: allowance.refusedCalls } : {}),
            cacheHits: allowance?.cacheHits ?? 0,
            ...analyticsAskFields(contextValue.askOutcomes),
            // Answered whole by the response cache (src/graphql/responseCache/): nothing executed, so no calls.
            ...(requestMetrics.responseCacheHit === true ? { responseCacheHit: true } : {}),
            ...(codes.length > 0 ? { errorCodes: [...new Set(codes)] } : {}),
          };
          logger.info(entry, codes.length > 0 ? 'graphql operation failed' : 'graphql operation');
          if (metrics === undefined) return;
          metrics.recordOperation({
            name: operationName,
            type: operation?.operation ?? 'unknown',
            outcome,
            durationSeconds: durationMs / 1000,
            upstreamCalls,
          });
          for (const code of new Set(codes)) if (isLimitCode(code)) metrics.recordLimitRefusal(code);
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
