import type { Logger } from './logger';
import { NO_OBSERVER, type Observer, type OperationFinished } from '../kernel/observer';

/** A pino logger, or any logger with these methods (one without `isLevelEnabled` is told every line). */
type OperationLogger = Pick<Logger, 'info' | 'error'> & Partial<Pick<Logger, 'isLevelEnabled'>>;

/**
 * The operation log, as the one observer's part: one info line per operation
 * and per subscription's start and end
 * (its name, type, duration, outcome, the upstream calls made and refused, the
 * cache hits, how its analytics asks were answered and the client name the
 * request carried), and an error line with the stack for a bug. Never the
 * variables or the query text. The metrics count the same record
 * (metricsObserver.ts), so both tell the same story.
 */
export function operationLog(logger: OperationLogger): Observer {
  return {
    ...NO_OBSERVER,
    operationFinished: (operation) => {
      // The line is built only to be written: at LOG_LEVEL=warn and above, every operation would build it for nothing.
      if (logger.isLevelEnabled?.('info') === false) return;
      const failed = operation.errorCodes.length > 0;
      logger.info(logEntry(operation), failed ? 'graphql operation failed' : 'graphql operation');
    },
    // Never the arguments (urls, filters), as the operation's line never has the variables.
    subscriptionOpened: ({ id, field }) => logger.info({ subscription: id, field }, 'subscription started'),
    subscriptionClosed: ({ id, field, durationMs, events }) =>
      logger.info({ subscription: id, field, durationMs, events }, 'subscription ended'),
    unexpectedError: (error, path) => logger.error({ err: error, path }, 'unexpected error while executing an operation'),
  };
}

function logEntry(operation: OperationFinished): Record<string, unknown> {
  return {
    operationName: operation.name,
    ...(operation.clientName === undefined ? {} : { clientName: operation.clientName }),
    operationType: operation.type,
    durationMs: Math.round(operation.durationMs * 10) / 10,
    status: operation.status,
    outcome: operation.outcome,
    upstreamCalls: operation.upstreamCalls,
    ...(operation.refusedUpstreamCalls > 0 ? { refusedUpstreamCalls: operation.refusedUpstreamCalls } : {}),
    cacheHits: operation.cacheHits,
    ...analyticsAskCounts(operation.analyticsAsks),
    ...(operation.responseCacheHit ? { responseCacheHit: true } : {}),
    ...(operation.errorCodes.length > 0 ? { errorCodes: [...new Set(operation.errorCodes)] } : {}),
  };
}

/** How many of the operation's analytics asks were answered each way (fresh, table, stale, merged, refused). */
function analyticsAskCounts(outcomes: readonly string[]): { analyticsAsks?: Record<string, number> } {
  if (outcomes.length === 0) return {};
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return { analyticsAsks: counts };
}
