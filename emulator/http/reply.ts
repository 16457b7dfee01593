import type { ErrorBody, Outcome, ParamError } from '../outcome';

/**
 * What a route handler hands back; the server turns it into bytes. Handlers
 * never touch the ServerResponse, so every response goes through one place
 * that sets the JSON Content-Type and Content-Length.
 */
export interface Reply {
  status: number;
  /** Serialized as JSON; absent for 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body };
}

export function errorReply(status: number, msg: string, headers?: Record<string, string>): Reply {
  const body: ErrorBody = { msg };
  return json(status, body, headers);
}

/** 200 with no body at all: how the live API answers a metric outside the account's plan [seen]. */
export function emptyOk(): Reply {
  return { status: 200 };
}

export function noContent(): Reply {
  return { status: 204 };
}

/** An engine's or validator's failure as a reply; successes need a status of their own. */
export function failureReply(outcome: Outcome<unknown> & { ok: false }): Reply {
  return json(outcome.status, outcome.body);
}

export function tooManyRequests(retryAfterSeconds: number): Reply {
  return errorReply(429, 'Too many requests', { 'retry-after': String(retryAfterSeconds) });
}

/** The contract's 400 `{"msg":"Invalid params","errors":[...]}`. */
export function invalidParamsReply(errors: ParamError[]): Reply {
  const body: ErrorBody = { msg: 'Invalid params', errors };
  return json(400, body);
}
