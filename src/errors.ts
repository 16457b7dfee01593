import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { SIGN_IN_PATH } from './datasources/signIn';
import { redactCredentials } from './http/redactCredentials';
import { UpstreamError, type UpstreamService } from './http/upstreamError';
import { limitCodeOf } from './limits/limitErrors';

/** Every `extensions.code` this subgraph produces itself. */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  UPSTREAM_UNAUTHENTICATED: 'UPSTREAM_UNAUTHENTICATED',
  UPSTREAM_FORBIDDEN: 'UPSTREAM_FORBIDDEN',
  UPSTREAM_RATE_LIMITED: 'UPSTREAM_RATE_LIMITED',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  UPSTREAM_BAD_RESPONSE: 'UPSTREAM_BAD_RESPONSE',
  UPSTREAM_METRIC_UNAVAILABLE: 'UPSTREAM_METRIC_UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface FormatErrorOptions {
  production: boolean;
}

const GENERIC_MESSAGE = 'Internal server error';

/** One argument problem: where (e.g. `query.filters[1].values`) and what is wrong. */
export interface InvalidArgument {
  path: string;
  message: string;
}

/**
 * The one BAD_USER_INPUT this subgraph builds itself: every argument problem
 * in one error, so a caller fixes a query in one round trip. The message
 * lists them and `extensions.invalidArgs` carries them as data.
 */
export function invalidArguments(problems: readonly InvalidArgument[]): GraphQLError {
  if (problems.length === 0) throw new Error('invalidArguments: called without a problem');
  const listed = problems.map((problem) => `${problem.path}: ${problem.message}`);
  const message = problems.length === 1 ? `Invalid argument ${listed[0]}` : `${problems.length} invalid arguments: ${listed.join('; ')}`;
  return new GraphQLError(message, {
    extensions: { code: ErrorCode.BAD_USER_INPUT, invalidArgs: problems.map(({ path, message: text }) => ({ path, message: text })) },
  });
}

/** Throws the problems, if any: the one line each resolver uses before calling upstream. */
export function rejectInvalid(problems: readonly InvalidArgument[]): void {
  if (problems.length > 0) throw invalidArguments(problems);
}

/**
 * Apollo Server's `formatError` hook: the one place where failures become
 * what API clients see.
 * - UpstreamError → an UPSTREAM_* (or BAD_USER_INPUT / NOT_FOUND) code, a
 *   message naming the problem, and `extensions.upstream`. Rebuilt from the
 *   error's fields only, so nothing else the error object may hold leaks.
 * - A GraphQLError that already has a code (validation, invalidArguments, ...)
 *   passes through.
 * - Anything else is a bug: in production its message and stack are hidden.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown, options: FormatErrorOptions): GraphQLFormattedError {
  const upstreamError = findUpstreamError(error);
  if (upstreamError !== undefined) return formatUpstreamError(formatted, upstreamError, options);
  const limitCode = limitCodeOf(error);
  if (limitCode !== undefined) return withLocation(formatted, { message: formatted.message, extensions: { code: limitCode } });

  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code !== ErrorCode.INTERNAL_SERVER_ERROR) {
    return withLocation(formatted, {
      message: redactCredentials(formatted.message),
      extensions: options.production ? withoutStacktrace(formatted.extensions) : { ...formatted.extensions },
    });
  }

  if (options.production) {
    return withLocation(formatted, { message: GENERIC_MESSAGE, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } });
  }
  return withLocation(formatted, {
    message: redactCredentials(formatted.message),
    extensions: { ...formatted.extensions, code: ErrorCode.INTERNAL_SERVER_ERROR },
  });
}

export function upstreamErrorCode(error: UpstreamError): ErrorCode {
  switch (error.kind) {
    case 'timeout':
      return ErrorCode.UPSTREAM_TIMEOUT;
    case 'network':
      return ErrorCode.UPSTREAM_UNAVAILABLE;
    case 'bad_response':
      return ErrorCode.UPSTREAM_BAD_RESPONSE;
    case 'budget_exhausted':
      return ErrorCode.UPSTREAM_RATE_LIMITED;
    case 'circuit_open':
      return ErrorCode.UPSTREAM_UNAVAILABLE;
    case 'http':
      return httpStatusCode(error);
    case 'metric_unavailable':
      return ErrorCode.UPSTREAM_METRIC_UNAVAILABLE;
  }
}

function httpStatusCode(error: UpstreamError): ErrorCode {
  const status = error.status ?? 0;
  // Sign-in is driven by our configuration, not by the API client's input: any
  // rejection of it (even a 400 for a malformed email) is a credentials problem.
  if (isSignIn(error) && (status === 400 || status === 401)) return ErrorCode.UPSTREAM_UNAUTHENTICATED;
  if (status === 400) return ErrorCode.BAD_USER_INPUT;
  if (status === 401) return ErrorCode.UPSTREAM_UNAUTHENTICATED;
  if (status === 403) return ErrorCode.UPSTREAM_FORBIDDEN;
  // Only render.json has a "no such thing" answer (an unknown experience id);
  // a 404 elsewhere means a wrong base URL, reported as an unexpected answer.
  if (status === 404 && error.service === 'recommender') return ErrorCode.NOT_FOUND;
  if (status === 429) return ErrorCode.UPSTREAM_RATE_LIMITED;
  if (status >= 500) return ErrorCode.UPSTREAM_UNAVAILABLE;
  return ErrorCode.UPSTREAM_BAD_RESPONSE;
}

function upstreamErrorMessage(error: UpstreamError, code: ErrorCode = upstreamErrorCode(error)): string {
  const who = SERVICE_NAMES[error.service];
  const said = error.upstreamMessage === undefined ? '' : `: ${error.upstreamMessage}`;
  switch (code) {
    case ErrorCode.BAD_USER_INPUT:
      return `${who} rejected the request as invalid${said}${describeFieldErrors(error)}`;
    case ErrorCode.NOT_FOUND:
      return `${who} found no recommender experience with this id${said}`;
    case ErrorCode.UPSTREAM_UNAUTHENTICATED:
      return isSignIn(error)
        ? `${who} rejected the configured credentials (REPORTING_EMAIL / REPORTING_PASSWORD)${said}`
        : `${who} rejected the access token, even after signing in again${said}`;
    case ErrorCode.UPSTREAM_FORBIDDEN:
      return `${who} refused access for the configured account${said}`;
    case ErrorCode.UPSTREAM_RATE_LIMITED:
      if (error.kind === 'budget_exhausted') {
        return `${who} request budget is spent (the subgraph did not send the request); retry after ${error.retryAfterSeconds ?? 1} s`;
      }
      return error.retryAfterSeconds === undefined
        ? `${who} rate limit was exceeded${said}`
        : `${who} rate limit was exceeded; retry after ${error.retryAfterSeconds} s${said}`;
    case ErrorCode.UPSTREAM_TIMEOUT:
      return error.timeoutMs === undefined ? `${who} did not answer in time` : `${who} did not answer within ${error.timeoutMs} ms`;
    case ErrorCode.UPSTREAM_UNAVAILABLE:
      if (error.kind === 'circuit_open') return `${who} is failing repeatedly; calls are suspended for a short cool-down`;
      return error.kind === 'network'
        ? `${who} could not be reached (${error.reason ?? 'connection failed'})`
        : `${who} is unavailable (HTTP ${error.status ?? 'error'})${said}`;
    case ErrorCode.UPSTREAM_BAD_RESPONSE:
      return error.kind === 'http'
        ? `${who} answered with an unexpected HTTP ${error.status ?? 'error'}${said}`
        : `${who} sent a malformed response${error.reason === undefined ? '' : `: ${error.reason}`}`;
    case ErrorCode.UPSTREAM_METRIC_UNAVAILABLE:
      return `${who} does not offer ${(error.metrics ?? []).join(', ')} for the configured account (it answered with an empty body)`;
    case ErrorCode.INTERNAL_SERVER_ERROR:
      return GENERIC_MESSAGE;
  }
}

const SERVICE_NAMES: Record<UpstreamService, string> = {
  reporting: 'The reporting API',
  recommender: 'The recommender',
};

const MAX_FIELD_ERRORS_IN_MESSAGE = 3;

function describeFieldErrors(error: UpstreamError): string {
  const described = (error.upstreamErrors ?? [])
    .slice(0, MAX_FIELD_ERRORS_IN_MESSAGE)
    .map((fieldError) => [fieldError.path, fieldError.message].filter((part) => part !== undefined).join(': '))
    .filter((text) => text !== '');
  return described.length === 0 ? '' : ` (${described.join('; ')})`;
}

function formatUpstreamError(formatted: GraphQLFormattedError, error: UpstreamError, options: FormatErrorOptions): GraphQLFormattedError {
  const code = upstreamErrorCode(error);
  const upstream: Record<string, unknown> = { service: error.service, endpoint: error.endpoint };
  if (error.status !== undefined) upstream.status = error.status;
  const extensions: Record<string, unknown> = { code, upstream };
  if (error.retryAfterSeconds !== undefined) extensions.retryAfter = error.retryAfterSeconds;
  if (error.metrics !== undefined) extensions.metrics = error.metrics;
  if (code === ErrorCode.BAD_USER_INPUT && error.upstreamErrors !== undefined) extensions.upstreamErrors = error.upstreamErrors;
  const stacktrace = formatted.extensions?.stacktrace;
  if (!options.production && stacktrace !== undefined) extensions.stacktrace = stacktrace;
  return withLocation(formatted, { message: upstreamErrorMessage(error, code), extensions });
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

function isSignIn(error: UpstreamError): boolean {
  return error.service === 'reporting' && error.endpoint === SIGN_IN_PATH;
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
