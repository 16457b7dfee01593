/**
 * Errors as API clients see them: the codes, argument errors, the formatError
 * hook, and the upstream error table (src/upstream/transport/ imports the table from
 * ./upstreamErrorTable directly: through this index it would import itself).
 */
export { ErrorCode } from '../../kernel/failures/errorCodes';
export { formatError, upstreamErrorCode, type FormatErrorOptions } from './formatError';
export { invalidArguments, rejectInvalid, type InvalidArgument } from './invalidArguments';
export { describeUpstreamFailure } from '../../kernel/failures/upstreamErrorTable';
