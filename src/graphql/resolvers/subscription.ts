import { GraphQLError } from 'graphql';
import type { SubscriptionResolvers } from '../__generated__/resolvers-types';
import type { Context } from '../../operation/context';
import { ErrorCode } from '../../kernel/failures/errorCodes';
import { formatError } from '../errors/formatError';
import type { Emission, FeedSource } from '../../reporting/live/liveFeed';
import { SubscriptionRefused, type LiveNumbers } from '../../reporting/live/liveNumbers';
import { articleAnalyticsSource, topArticlesSource } from '../subscriptions/sources';

/**
 * The live numbers: `subscribe` opens the subscriber's stream from the hub
 * (one feed per distinct subscription), `resolve` turns each emission into
 * the field's value, or its error (the subscription stays open).
 */
export const Subscription: SubscriptionResolvers = {
  topArticles: {
    subscribe: (_root, args, context) => open(context, 'topArticles', topArticlesSource(args, context.reads)),
    resolve: (emission: Emission<unknown>) => valueOf(emission) as never,
  },
  articleAnalytics: {
    subscribe: (_root, args, context, info) =>
      open(context, 'articleAnalytics', articleAnalyticsSource(args, context.reads, context.maxRows, info)),
    resolve: (emission: Emission<unknown>) => valueOf(emission) as never,
  },
};

/** The subscriber's stream from the hub; a refusal over a cap is SUBSCRIPTION_LIMIT, naming the cap. */
function open<T>(context: Context, field: string, source: FeedSource<T>): AsyncIterableIterator<Emission<T>> {
  try {
    return liveOf(context).subscribe(field, source);
  } catch (error) {
    if (!(error instanceof SubscriptionRefused)) throw error;
    throw new GraphQLError(error.message, { extensions: { code: ErrorCode.SUBSCRIPTION_LIMIT, limit: error.limit } });
  }
}

function liveOf(context: Context): LiveNumbers {
  if (context.live === undefined) {
    throw new GraphQLError('Subscriptions are not served by this server', { extensions: { code: ErrorCode.SUBSCRIPTION_LIMIT } });
  }
  return context.live;
}

/**
 * A subscription operation sent as a plain HTTP request (no callback
 * extension) is executed, not subscribed: its resolver then gets no emission.
 */
function valueOf(emission: Emission<unknown> | undefined): unknown {
  if (emission === undefined) {
    throw new GraphQLError(
      'Subscriptions are served over WebSocket (graphql-transport-ws) on /graphql, or through Apollo’s HTTP callback protocol',
      { extensions: { code: ErrorCode.BAD_USER_INPUT } },
    );
  }
  if ('error' in emission) throw asClientError(emission.error);
  return emission.value;
}

/**
 * The error as a client sees it (code, message, redaction: formatError),
 * made here because Apollo's callback plugin sends the events of a
 * subscription as graphql-js made them, never through Apollo's formatError.
 * Stack traces stay out, as in production: an event outlives its request.
 */
function asClientError(error: Error): GraphQLError {
  const formatted = formatError(new GraphQLError(error.message, { originalError: error }).toJSON(), error, { production: true });
  return new GraphQLError(formatted.message, { ...(formatted.extensions === undefined ? {} : { extensions: formatted.extensions }) });
}
