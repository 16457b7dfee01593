import { GraphQLError } from 'graphql';
import { ErrorCode } from '../../kernel/failures/errorCodes';

/** A field or value the caller may not read: FORBIDDEN at its path, the fields beside it still answer. */
export function forbidden(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.FORBIDDEN } });
}
