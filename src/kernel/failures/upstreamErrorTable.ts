/**
 * The words for an upstream error: the message API clients read and the plain
 * account of what happened (UpstreamError's own message, for logs). The
 * `extensions.code` is the failure policy's (policy.ts). It imports only types
 * from upstreamError.ts, so upstreamError.ts can use it too.
 */
import type { UpstreamErrorDetails, UpstreamErrorKind, UpstreamService } from './failureDetails';
import { ErrorCode } from './errorCodes';
import { policyOfDetails } from './policy';

/** What is known about a failed call beyond its details. */
export interface UpstreamCallContext {
  /** The call was the sign-in, which our configuration drives, not the API client's input. */
  signIn: boolean;
}

interface UpstreamErrorEntry {
  code(error: UpstreamErrorDetails, context: UpstreamCallContext): ErrorCode;
  /** For API clients; `who` is the service's name, e.g. "The reporting API". */
  message(error: UpstreamErrorDetails, who: string, context: UpstreamCallContext): string;
  /** What happened, for logs; `where` is the service and endpoint, e.g. "reporting /api/dashboard/query". */
  account(error: UpstreamErrorDetails, where: string): string;
}

const said = (error: UpstreamErrorDetails): string => (error.upstreamMessage === undefined ? '' : `: ${error.upstreamMessage}`);

const didNotAnswer = (error: UpstreamErrorDetails, who: string): string =>
  error.timeoutMs === undefined ? `${who} did not answer in time` : `${who} did not answer within ${error.timeoutMs} ms`;

const unreachable = (error: UpstreamErrorDetails, who: string): string =>
  `${who} could not be reached (${error.reason ?? 'connection failed'})`;

const malformed = (error: UpstreamErrorDetails, who: string): string =>
  `${who} sent a malformed response${error.reason === undefined ? '' : `: ${error.reason}`}`;

const policyCode = (error: UpstreamErrorDetails): ErrorCode => policyOfDetails(error).code;

const UPSTREAM_ERRORS: { readonly [Kind in UpstreamErrorKind]: UpstreamErrorEntry } = {
  http: {
    code: httpStatusCode,
    message: (error, who, context) => HTTP_MESSAGES[httpStatusCode(error, context)](error, who, context),
    account: (error, where) => `${where} answered HTTP ${error.status ?? 'error'}${said(error)}`,
  },
  timeout: { code: policyCode, message: didNotAnswer, account: didNotAnswer },
  network: { code: policyCode, message: unreachable, account: unreachable },
  bad_response: { code: policyCode, message: malformed, account: malformed },
  budget_exhausted: {
    code: policyCode,
    message: (error, who) =>
      `${who} request budget is spent (the subgraph did not send the request); retry after ${error.retryAfterSeconds ?? 1} s`,
    account: (error, where) =>
      `${where} was not called: its request budget is spent${error.retryAfterSeconds === undefined ? '' : ` for ${error.retryAfterSeconds} s`}`,
  },
  metric_unavailable: {
    code: policyCode,
    message: (error, who) =>
      `${who} does not offer ${(error.metrics ?? []).join(', ')} for the configured account (it answered with an empty body)`,
    account: (error, where) =>
      `${where} answered 200 with an empty body: metrics ${(error.metrics ?? []).join(', ')} are not available for this account`,
  },
  caller_share_spent: {
    code: policyCode,
    message: (error, who) =>
      `${who} request budget this caller's dashboards may take is spent (its fair share; the subgraph did not send the request); retry after ${error.retryAfterSeconds ?? 1} s`,
    account: (error, where) =>
      `${where} was not called: the caller's fair share of its budget is spent${error.retryAfterSeconds === undefined ? '' : ` for ${error.retryAfterSeconds} s`}`,
  },
  caller_tables_spent: {
    code: policyCode,
    message: (error, who) =>
      `${who} request budget for new tables this caller may take is spent (ANALYTICS_NEW_TABLES_PER_CALLER tables no replica held yet, over DASHBOARD_SHARE_WINDOW_SECONDS; the subgraph did not send the request); retry after ${error.retryAfterSeconds ?? 1} s`,
    account: (error, where) =>
      `${where} was not called: the caller asked for as many new tables as it may${error.retryAfterSeconds === undefined ? '' : ` for ${error.retryAfterSeconds} s`}`,
  },
  circuit_open: {
    code: policyCode,
    message: (_error, who) => `${who} is failing repeatedly; calls are suspended for a short cool-down`,
    account: (_error, where) => `${where} was not called: it failed repeatedly and its circuit breaker is open`,
  },
};

type HttpErrorCode =
  | typeof ErrorCode.BAD_USER_INPUT
  | typeof ErrorCode.NOT_FOUND
  | typeof ErrorCode.UPSTREAM_UNAUTHENTICATED
  | typeof ErrorCode.UPSTREAM_FORBIDDEN
  | typeof ErrorCode.UPSTREAM_RATE_LIMITED
  | typeof ErrorCode.UPSTREAM_UNAVAILABLE
  | typeof ErrorCode.UPSTREAM_BAD_RESPONSE;

/** The code is the failure policy's (policy.ts); only HTTP statuses share one message per code here. */
function httpStatusCode(error: UpstreamErrorDetails, context: UpstreamCallContext): HttpErrorCode {
  const policy = policyOfDetails(error);
  return ((context.signIn ? policy.signInCode : undefined) ?? policy.code) as HttpErrorCode;
}

/** What API clients read for an HTTP status, by the code it maps to. */
const HTTP_MESSAGES: Record<HttpErrorCode, UpstreamErrorEntry['message']> = {
  BAD_USER_INPUT: (error, who) => `${who} rejected the request as invalid${said(error)}${describeFieldErrors(error)}`,
  NOT_FOUND: (error, who) => `${who} found no recommender experience with this id${said(error)}`,
  UPSTREAM_UNAUTHENTICATED: (error, who, context) =>
    context.signIn
      ? `${who} rejected the configured credentials (REPORTING_EMAIL / REPORTING_PASSWORD)${said(error)}`
      : `${who} rejected the access token, even after signing in again${said(error)}`,
  UPSTREAM_FORBIDDEN: (error, who) => `${who} refused access for the configured account${said(error)}`,
  UPSTREAM_RATE_LIMITED: (error, who) =>
    error.retryAfterSeconds === undefined
      ? `${who} rate limit was exceeded${said(error)}`
      : `${who} rate limit was exceeded; retry after ${error.retryAfterSeconds} s${said(error)}`,
  UPSTREAM_UNAVAILABLE: (error, who) => `${who} is unavailable (HTTP ${error.status ?? 'error'})${said(error)}`,
  UPSTREAM_BAD_RESPONSE: (error, who) => `${who} answered with an unexpected HTTP ${error.status ?? 'error'}${said(error)}`,
};

const MAX_FIELD_ERRORS_IN_MESSAGE = 3;

function describeFieldErrors(error: UpstreamErrorDetails): string {
  const described = (error.upstreamErrors ?? [])
    .slice(0, MAX_FIELD_ERRORS_IN_MESSAGE)
    .map((fieldError) => [fieldError.path, fieldError.message].filter((part) => part !== undefined).join(': '))
    .filter((text) => text !== '');
  return described.length === 0 ? '' : ` (${described.join('; ')})`;
}

const SERVICE_NAMES: Record<UpstreamService, string> = {
  reporting: 'The reporting API',
  recommender: 'The recommender',
};

/** The code and the message an API client gets for a failed upstream call. */
export function explainUpstreamError(error: UpstreamErrorDetails, context: UpstreamCallContext): { code: ErrorCode; message: string } {
  const entry = UPSTREAM_ERRORS[error.kind];
  return { code: entry.code(error, context), message: entry.message(error, SERVICE_NAMES[error.service], context) };
}

/** What happened, without a URL: UpstreamError's own message (for logs). */
export function describeUpstreamFailure(details: UpstreamErrorDetails): string {
  return UPSTREAM_ERRORS[details.kind].account(details, `${details.service} ${details.endpoint}`);
}
