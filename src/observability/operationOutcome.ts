import type { GraphQLResponse } from '@apollo/server';

/** Codes are ours or Apollo's (UPPER_SNAKE); anything else would be an unbounded label. */
const CODE_PATTERN = /^[A-Z][A-Z_]{0,47}$/;

/** The codes as the client sees them, i.e. after formatError. */
export function sentErrorCodes(body: GraphQLResponse['body']): string[] {
  const errors = body.kind === 'single' ? body.singleResult.errors : body.initialResult.errors;
  return (errors ?? []).map((error) => String(error.extensions?.code ?? 'UNKNOWN'));
}

/** `ok`, or the first error code: what the log's `outcome` and the metrics' `outcome` label say. */
export function operationOutcome(codes: readonly string[]): string {
  if (codes.length === 0) return 'ok';
  return CODE_PATTERN.test(codes[0]) ? codes[0] : 'OTHER';
}
