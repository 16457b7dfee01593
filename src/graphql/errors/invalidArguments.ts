import { GraphQLError } from 'graphql';
import { ErrorCode } from '../../kernel/failures/errorCodes';
import type { InvalidArgument } from '../../reporting/dashboard/invalidArgument';

export type { InvalidArgument };

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
