import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { SIGN_IN_PATH } from '../../kernel/wire';
import { redactErrorResponse } from '../../redaction';
import { UpstreamError } from '../../kernel/failures/upstreamError';
import { limitCodeOf } from '../limits/limitErrors';
import { ReadForbidden } from '../../reporting/reads/readForbidden';
import { ErrorCode } from '../../kernel/failures/errorCodes';
import { explainUpstreamError, type UpstreamCallContext } from '../../kernel/failures/upstreamErrorTable';

export interface FormatErrorOptions {
  production: boolean;
}

const GENERIC_MESSAGE = 'Internal server error';

/**
 * Apollo Server's `formatError` hook: the one place where failures become
 * what API clients see.
 * - UpstreamError → an UPSTREAM_* (or BAD_USER_INPUT / NOT_FOUND) code, a
 *   message naming the problem (both from the table in upstreamErrorTable.ts),
 *   and `extensions.upstream`. Rebuilt from the error's fields only, so
 *   nothing else the error object may hold leaks.
 * - ReadForbidden (the caller's read path: a site or metric outside the caller's) → FORBIDDEN.
 * - A GraphQLError that already has a code (validation, invalidArguments, ...)
 *   passes through.
 * - Anything else is a bug: in production its message and stack are hidden.
 * Then, once, every held secret in every form leaves each message and
 * extension (src/redaction/errorResponse.ts): the last step before a client
 * sees an error.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown, options: FormatErrorOptions): GraphQLFormattedError {
  return redactErrorResponse(shapeError(formatted, error, options));
}

function shapeError(formatted: GraphQLFormattedError, error: unknown, options: FormatErrorOptions): GraphQLFormattedError {
  const upstreamError = findUpstreamError(error);
  if (upstreamError !== undefined) return formatUpstreamError(formatted, upstreamError, options);
  const limitCode = limitCodeOf(error);
  if (limitCode !== undefined) return withLocation(formatted, { message: formatted.message, extensions: { code: limitCode } });
  if (unwrapResolverError(error) instanceof ReadForbidden)
    return withLocation(formatted, { message: formatted.message, extensions: { code: ErrorCode.FORBIDDEN } });

  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code !== ErrorCode.INTERNAL_SERVER_ERROR) {
    return withLocation(formatted, {
      message: formatted.message,
      extensions: options.production ? withoutStacktrace(formatted.extensions) : { ...formatted.extensions },
    });
  }

  if (options.production) {
    return withLocation(formatted, { message: GENERIC_MESSAGE, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } });
  }
  return withLocation(formatted, {
    message: formatted.message,
    extensions: { ...formatted.extensions, code: ErrorCode.INTERNAL_SERVER_ERROR },
  });
}

export function upstreamErrorCode(error: UpstreamError): ErrorCode {
  return explainUpstreamError(error, callContext(error)).code;
}

function callContext(error: UpstreamError): UpstreamCallContext {
  return { signIn: error.service === 'reporting' && error.endpoint === SIGN_IN_PATH };
}

function formatUpstreamError(formatted: GraphQLFormattedError, error: UpstreamError, options: FormatErrorOptions): GraphQLFormattedError {
  const { code, message } = explainUpstreamError(error, callContext(error));
  const upstream: Record<string, unknown> = { service: error.service, endpoint: error.endpoint };
  if (error.status !== undefined) upstream.status = error.status;
  const extensions: Record<string, unknown> = { code, upstream };
  if (error.retryAfterSeconds !== undefined) extensions.retryAfter = error.retryAfterSeconds;
  if (error.metrics !== undefined) extensions.metrics = error.metrics;
  if (code === ErrorCode.BAD_USER_INPUT && error.upstreamErrors !== undefined) extensions.upstreamErrors = error.upstreamErrors;
  const stacktrace = formatted.extensions?.stacktrace;
  if (!options.production && stacktrace !== undefined) extensions.stacktrace = stacktrace;
  return withLocation(formatted, { message, extensions });
}

/**
 * Resolver errors are unwrapped by unwrapResolverError; errors raised outside
 * a resolver (e.g. while building the context) arrive as a GraphQLError whose
 * originalError is the UpstreamError.
 */
function findUpstreamError(error: unknown): UpstreamError | undefined {
  const unwrapped = unwrapResolverError(error);
  if (unwrapped instanceof UpstreamError) return unwrapped;
  if (unwrapped instanceof GraphQLError && unwrapped.originalError instanceof UpstreamError) return unwrapped.originalError;
  return undefined;
}

function withLocation(
  formatted: GraphQLFormattedError,
  rest: { message: string; extensions: Record<string, unknown> },
): GraphQLFormattedError {
  return {
    message: rest.message,
    ...(formatted.locations === undefined ? {} : { locations: formatted.locations }),
    ...(formatted.path === undefined ? {} : { path: formatted.path }),
    extensions: rest.extensions,
  };
}

function withoutStacktrace(extensions: GraphQLFormattedError['extensions']): Record<string, unknown> {
  const { stacktrace: _stacktrace, ...rest } = extensions ?? {};
  return rest;
}
