import type { ApolloServerPlugin } from '@apollo/server';
import type { Context } from '../../operation/context';
import { isLimitCode } from '../../graphql/limits/codes';
import { operationOutcome, sentErrorCodes } from '../operationOutcome';
import type { Metrics } from './metrics';

/** Records every operation (and every limit it hit) in the metrics, as the response leaves. */
export function operationMetricsPlugin(
  metrics: Pick<Metrics, 'recordOperation' | 'recordLimitRefusal'>,
  now: () => number = performance.now.bind(performance),
): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ contextValue }) {
      const startedAt = now();
      return {
        async willSendResponse({ operationName, operation, response }) {
          const codes = sentErrorCodes(response.body);
          metrics.recordOperation({
            name: operationName,
            type: operation?.operation ?? 'unknown',
            outcome: operationOutcome(codes),
            durationSeconds: (now() - startedAt) / 1000,
            upstreamCalls: contextValue.allowance?.calls ?? 0,
          });
          for (const code of new Set(codes)) if (isLimitCode(code)) metrics.recordLimitRefusal(code);
        },
      };
    },
  };
}
