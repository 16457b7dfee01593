import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isCanonicalInstant, parseIsoInstant } from '../../kernel/instants';

const EXPECTED = 'an ISO-8601 date-time with a zone (e.g. "2026-11-20T08:15:00Z") or a date "YYYY-MM-DD"';

/**
 * `DateTime`: an ISO-8601 instant, always sent as UTC (`toISOString`). Inside
 * the subgraph the value is that ISO string (codegen `scalars.DateTime: string`).
 */
export const DateTimeScalar = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description: 'An instant in time as an ISO-8601 string in UTC.',
  serialize(value) {
    // The subgraph's own values are already in the form sent: a Date and its toISOString per value showed in the raw path's profile.
    if (typeof value === 'string' && isCanonicalInstant(value)) return value;
    const millis = value instanceof Date ? value.getTime() : typeof value === 'string' ? parseIsoInstant(value) : undefined;
    if (millis === undefined || Number.isNaN(millis)) {
      throw new GraphQLError(`DateTime cannot represent ${describe(value)}: expected ${EXPECTED}`);
    }
    return new Date(millis).toISOString();
  },
  parseValue(value) {
    if (typeof value !== 'string') throw new GraphQLError(`DateTime must be a string, got ${describe(value)}`);
    return normalize(value);
  },
  parseLiteral(ast: ValueNode) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`DateTime must be a string literal, got ${ast.kind}`);
    return normalize(ast.value);
  },
});

function normalize(text: string): string {
  const millis = parseIsoInstant(text);
  if (millis === undefined) throw new GraphQLError(`DateTime cannot represent ${JSON.stringify(text)}: expected ${EXPECTED}`);
  return new Date(millis).toISOString();
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return 'an invalid Date';
  return typeof value;
}

/** The DateTime value of an instant in epoch milliseconds: what resolvers return for the subgraph's own times. */
export function dateTimeOf(millis: number): string {
  return new Date(millis).toISOString();
}
