import type { GraphQLFormattedError } from 'graphql';
import { redactCredentials } from './redactCredentials';

const REDACTED = '[redacted]';

/** Deeper than any error extension this subgraph builds; what lies below is dropped rather than shown unredacted. */
const MAX_DEPTH = 8;

/**
 * The GraphQL responses' redaction: every string of a formatted error (its
 * message, path and extensions, however deep) with every credential removed.
 * Applied once, as the last step of formatError (src/graphql/errors/formatError.ts).
 */
export function redactErrorResponse(formatted: GraphQLFormattedError): GraphQLFormattedError {
  return redactValue(formatted, 0) as GraphQLFormattedError;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactCredentials(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactValue(item, depth + 1);
  return copy;
}
