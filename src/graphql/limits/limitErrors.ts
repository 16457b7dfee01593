import { GraphQLError } from 'graphql';
import { AllowanceExceeded } from '../../operation/upstreamAllowance';
import { isLimitCode, LimitCode } from './codes';

/** graphql-js's own words when `parse` stops at `maxTokens` ("more that" in graphql 16, sic). */
const TOO_MANY_TOKENS = /^Syntax Error: Document contains more tha[nt] \d+ tokens/;

/**
 * The limit code behind an error Apollo reports as a parse or validation
 * failure: Apollo rewrites every validation error's code to
 * GRAPHQL_VALIDATION_FAILED, and graphql-js's token limit is a plain syntax
 * error. Clients and alerts need to tell a refused limit from a typo. A key
 * beyond the operation's allowance fails at its path with the allowance's own
 * error, which gets its code here too.
 */
export function limitCodeOf(error: unknown): LimitCode | undefined {
  if (!(error instanceof GraphQLError)) return undefined;
  const original = error.originalError;
  if (original instanceof AllowanceExceeded) return LimitCode.UPSTREAM_BUDGET_EXCEEDED;
  if (original instanceof GraphQLError && isLimitCode(original.extensions.code)) return original.extensions.code;
  if (TOO_MANY_TOKENS.test(error.message)) return LimitCode.MAX_TOKENS_LIMIT;
  return undefined;
}
