/** Every `extensions.code` this subgraph produces itself. */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  /** The caller's JWT lacks a scope the schema declares, or names a site outside its sites claim (src/graphql/access/). */
  FORBIDDEN: 'FORBIDDEN',
  UPSTREAM_UNAUTHENTICATED: 'UPSTREAM_UNAUTHENTICATED',
  UPSTREAM_FORBIDDEN: 'UPSTREAM_FORBIDDEN',
  UPSTREAM_RATE_LIMITED: 'UPSTREAM_RATE_LIMITED',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  UPSTREAM_BAD_RESPONSE: 'UPSTREAM_BAD_RESPONSE',
  /** The reporting API answered 200 with an empty body: a metric outside the account's plan. */
  UPSTREAM_METRIC_UNAVAILABLE: 'UPSTREAM_METRIC_UNAVAILABLE',
  /** A subscription over a cap (MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS_PER_CONNECTION) or while the replica shuts down. */
  SUBSCRIPTION_LIMIT: 'SUBSCRIPTION_LIMIT',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** Outside GraphQL execution: a request to /graphql without the proofs CALLER_AUTH requires (401, src/web/callerGate.ts). */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** Outside GraphQL execution: the caller's proof cannot be checked now (503, e.g. the JWKS unreachable), or the replica is shutting down. */
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  /** Outside GraphQL execution: a request the HTTP layer cannot read (its body, method or content type; src/web/respond.ts). */
  BAD_REQUEST: 'BAD_REQUEST',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
