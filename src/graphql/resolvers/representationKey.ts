import { invalidArguments } from '../errors';

/**
 * The key field of an `_entities` representation, checked: the router sends
 * whatever JSON it was given, and a key of the wrong type is the caller's
 * error (BAD_USER_INPUT at that entity's path), not a crash further down.
 */
export function representationKey(typename: string, field: string, value: unknown): string {
  if (typeof value === 'string') return value;
  throw invalidArguments([{ path: `representations[].${field}`, message: `the ${typename} key must be a string, got ${describe(value)}` }]);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
