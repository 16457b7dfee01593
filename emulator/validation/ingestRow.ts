import type { ParamError } from '../outcome';

/** One rejected row of an ingestion batch, as the contract reports it. */
export interface RejectedRow {
  index: number;
  message: string;
}

export type RowResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** All of a row's field errors in one message, e.g. `url: must be ...; title: is required`. */
export function rowFailure(errors: readonly ParamError[]): RowResult<never> {
  return { ok: false, message: errors.map((e) => `${e.path}: ${e.message}`).join('; ') };
}
