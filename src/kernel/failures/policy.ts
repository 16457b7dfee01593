/**
 * The failure policy: for each kind of upstream failure (and HTTP status),
 * every decision the call path takes about it, in one table. The retry stage,
 * the governor stage, the circuit breaker, stale-if-error, the sign-in backoff,
 * the client error code and reporting's budget queue (wait for the next slot?
 * split a merged query on an empty body? a refused query of our own?) all read
 * `failurePolicyOf` (upstreamError.ts, for a caught error) or
 * `policyOfDetails`; none of them looks at `kind` or `status` on its own.
 */
import type { UpstreamErrorDetails, UpstreamErrorKind, UpstreamService } from './failureDetails';
import { ErrorCode } from './errorCodes';

export interface FailurePolicy {
  /**
   * - `backoff`: another attempt can plausibly succeed (a proxy failed, a dropped keep-alive socket): retried after a
   *   jittered pause, requests safe to repeat only.
   * - `after_pause`: the upstream's own rate (429): repeated once, after its Retry-After, if that fits the deadline.
   * - `never`: the same request would fail the same way (a 4xx, a 500 bug, a timeout that already spent the budget).
   */
  retry: 'backoff' | 'after_pause' | 'never';
  /** An upstream outage: counts towards opening the endpoint's circuit breaker. */
  breaker: boolean;
  /** An answer up to STALE_IF_ERROR_SECONDS old may be served instead of this error. */
  staleIfError: boolean;
  /** On the sign-in, starts its backoff: `refused` (our configuration) or `unavailable` (the host); undefined: none. */
  signInBackoff: 'refused' | 'unavailable' | undefined;
  /** The upstream took the request and answered it (whatever it said): a governor probe that ends so reopens the budget. */
  answered: boolean;
  /** Refused here, never sent: a retry refused so is not sent, and its caller keeps the error before it. */
  local: boolean;
  /**
   * Reporting's budget queue: no slot now, and the refusal names when the next
   * one is (`retryAfter`): the ask waits for that slot within its deadline, and
   * the queue learns the slot from it (a refused try spends nothing).
   */
  waitForSlot: boolean;
  /**
   * Reporting's budget queue: the upstream refused a metric of the query
   * without saying which (the empty body): a merged query is asked again body
   * by body (or without its one unproven metric), and the plan learns from it.
   */
  splitOnEmptyBody: boolean;
  /** The `extensions.code` API clients see. */
  code: ErrorCode;
  /** The code when the failed call was the sign-in, which our configuration drives (not the API client's input). */
  signInCode?: ErrorCode;
  /**
   * When the refused request was a query the subgraph built (the analytics tables' whole tables and asks
   * outside them), not one the API client wrote: `bad_response` makes it the upstream's unexpected answer
   * (UPSTREAM_BAD_RESPONSE), since no client input can fix it. Absent: the error stands as it is.
   */
  ownQuery?: 'bad_response';
}

/** One row: which failures it covers (the first matching row wins), and its policy. */
export interface FailurePolicyRow extends FailurePolicy {
  kind: UpstreamErrorKind;
  /** HTTP statuses; `5xx` for any status from 500; absent: any. */
  statuses?: readonly number[] | '5xx';
  /** Network error codes; absent: any. */
  reasons?: readonly string[];
  service?: UpstreamService;
  /** Why, for readers of the table. */
  why: string;
}

/** What reporting's budget queue does with most failures: its asks get the error. */
const NOT_FOR_THE_QUEUE = { waitForSlot: false, splitOnEmptyBody: false } as const;

const ACCOUNT_REFUSED = {
  ...NOT_FOR_THE_QUEUE,
  retry: 'never',
  breaker: false,
  staleIfError: false,
  signInBackoff: 'refused',
  answered: true,
  local: false,
} as const;
const OUTAGE = { ...NOT_FOR_THE_QUEUE, breaker: true, staleIfError: true, signInBackoff: 'unavailable', local: false } as const;
const ABOUT_THE_ANSWER = {
  ...NOT_FOR_THE_QUEUE,
  retry: 'never',
  breaker: false,
  staleIfError: false,
  answered: true,
  local: false,
} as const;
const REFUSED_HERE = {
  ...NOT_FOR_THE_QUEUE,
  retry: 'never',
  breaker: false,
  staleIfError: true,
  signInBackoff: undefined,
  answered: false,
  local: true,
} as const;

/** Read top to bottom: the first row that matches a failure decides everything about it. */
export const FAILURE_POLICY: readonly FailurePolicyRow[] = [
  {
    kind: 'http',
    statuses: [400],
    ...ACCOUNT_REFUSED,
    code: ErrorCode.BAD_USER_INPUT,
    signInCode: ErrorCode.UPSTREAM_UNAUTHENTICATED,
    ownQuery: 'bad_response',
    why: "the request is invalid; on the sign-in, even a malformed email is a credentials problem; on a query the subgraph built, the subgraph's",
  },
  { kind: 'http', statuses: [401], ...ACCOUNT_REFUSED, code: ErrorCode.UPSTREAM_UNAUTHENTICATED, why: 'the token or the credentials' },
  { kind: 'http', statuses: [403], ...ACCOUNT_REFUSED, code: ErrorCode.UPSTREAM_FORBIDDEN, why: 'the account lacks the role or the site' },
  {
    kind: 'http',
    statuses: [404],
    service: 'recommender',
    ...ABOUT_THE_ANSWER,
    signInBackoff: 'unavailable',
    code: ErrorCode.NOT_FOUND,
    why: 'only render.json has a "no such thing" answer (an unknown experience id)',
  },
  {
    kind: 'http',
    statuses: [429],
    ...NOT_FOR_THE_QUEUE,
    retry: 'after_pause',
    breaker: false,
    staleIfError: true,
    signInBackoff: undefined,
    answered: false,
    local: false,
    code: ErrorCode.UPSTREAM_RATE_LIMITED,
    why: "the upstream's rate: the governor pauses the budget, which is its own wait",
  },
  {
    kind: 'http',
    statuses: [502, 503, 504],
    retry: 'backoff',
    ...OUTAGE,
    answered: true,
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    why: 'a proxy in front failed, or the upstream is momentarily overloaded or restarting',
  },
  {
    kind: 'http',
    statuses: '5xx',
    retry: 'never',
    ...OUTAGE,
    answered: true,
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    why: "a 500 is the upstream's own bug for this request and would fail again",
  },
  {
    kind: 'http',
    ...ABOUT_THE_ANSWER,
    signInBackoff: 'unavailable',
    code: ErrorCode.UPSTREAM_BAD_RESPONSE,
    why: 'any other status (a 404 from the reporting host is a wrong base URL): an unexpected answer',
  },
  {
    kind: 'timeout',
    retry: 'never',
    ...OUTAGE,
    answered: false,
    code: ErrorCode.UPSTREAM_TIMEOUT,
    why: 'the caller already waited the whole budget, and a slow upstream is made slower by doubling its load',
  },
  {
    kind: 'network',
    reasons: ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'],
    retry: 'backoff',
    ...OUTAGE,
    answered: false,
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    why: 'dropped after connecting: usually a keep-alive socket the server closed while idle, which a fresh one fixes',
  },
  {
    kind: 'network',
    retry: 'never',
    ...OUTAGE,
    answered: false,
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    why: 'refused or not resolved: nothing is listening, and an immediate retry would fail the same way',
  },
  {
    kind: 'bad_response',
    ...ABOUT_THE_ANSWER,
    signInBackoff: 'unavailable',
    code: ErrorCode.UPSTREAM_BAD_RESPONSE,
    why: 'about the answer, not the upstream being available',
  },
  {
    kind: 'metric_unavailable',
    ...ABOUT_THE_ANSWER,
    signInBackoff: undefined,
    splitOnEmptyBody: true,
    code: ErrorCode.UPSTREAM_METRIC_UNAVAILABLE,
    why: "about the question: a metric outside the account's plan",
  },
  {
    kind: 'budget_exhausted',
    ...REFUSED_HERE,
    waitForSlot: true,
    code: ErrorCode.UPSTREAM_RATE_LIMITED,
    why: 'the governor refused to send it: it carries its own wait',
  },
  {
    kind: 'caller_share_spent',
    ...REFUSED_HERE,
    staleIfError: false,
    code: ErrorCode.UPSTREAM_RATE_LIMITED,
    why: "the budget queue refused it before any try: the caller's dashboards spent their fair share; it carries when there is room again, and never waits in the queue (nobody else waits longer for it)",
  },
  {
    kind: 'caller_tables_spent',
    ...REFUSED_HERE,
    staleIfError: false,
    code: ErrorCode.UPSTREAM_RATE_LIMITED,
    why: 'the analytics tables refused it before any try: the caller asked for as many new tables as it may (each costs a slot of the newsroom budget); it carries when there is room again, and never waits in the queue',
  },
  {
    kind: 'circuit_open',
    ...REFUSED_HERE,
    code: ErrorCode.UPSTREAM_UNAVAILABLE,
    why: 'the circuit breaker refused to send it: it carries its own cool-down',
  },
];

/** The policy of a failure described as plain data (e.g. shared through Redis). */
export function policyOfDetails(details: UpstreamErrorDetails): FailurePolicy {
  const row = FAILURE_POLICY.find((candidate) => matches(candidate, details));
  // The table ends with a row for every kind without conditions, so only a kind added without a row gets here.
  if (row === undefined) throw new Error(`failure policy: no row for kind ${details.kind} status ${details.status ?? '-'}`);
  return row;
}

function matches(row: FailurePolicyRow, details: UpstreamErrorDetails): boolean {
  if (row.kind !== details.kind) return false;
  if (row.service !== undefined && row.service !== details.service) return false;
  if (row.reasons !== undefined && (details.reason === undefined || !row.reasons.includes(details.reason))) return false;
  if (row.statuses === undefined) return true;
  if (details.status === undefined) return false;
  return row.statuses === '5xx' ? details.status >= 500 : row.statuses.includes(details.status);
}
