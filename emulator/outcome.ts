/** What an engine or a validator hands back to the HTTP layer. */
export interface ParamError {
  /** Where the problem is, e.g. `dates.last.number` or `filters[1].operator`. */
  path: string;
  message: string;
}

export interface ErrorBody {
  msg: string;
  errors?: ParamError[];
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; body: ErrorBody };

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** The contract's 400 body: `{"msg":"Invalid params","errors":[...]}`. */
export function invalidParams(errors: ParamError[]): Outcome<never> {
  return { ok: false, status: 400, body: { msg: 'Invalid params', errors } };
}

export function failure(status: number, msg: string): Outcome<never> {
  return { ok: false, status, body: { msg } };
}
