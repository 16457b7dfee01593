/**
 * The codes of the per-operation limits. The static ones follow Apollo
 * Router's names, so a supergraph's operators see one vocabulary.
 */
export const LimitCode = {
  MAX_DEPTH_LIMIT: 'MAX_DEPTH_LIMIT',
  MAX_ALIASES_LIMIT: 'MAX_ALIASES_LIMIT',
  MAX_DIRECTIVES_LIMIT: 'MAX_DIRECTIVES_LIMIT',
  MAX_TOKENS_LIMIT: 'MAX_TOKENS_LIMIT',
  UPSTREAM_BUDGET_EXCEEDED: 'UPSTREAM_BUDGET_EXCEEDED',
  PERSISTED_QUERY_NOT_IN_LIST: 'PERSISTED_QUERY_NOT_IN_LIST',
  PERSISTED_QUERY_ID_REQUIRED: 'PERSISTED_QUERY_ID_REQUIRED',
} as const;
export type LimitCode = (typeof LimitCode)[keyof typeof LimitCode];

const LIMIT_CODES = new Set<string>(Object.values(LimitCode));

export function isLimitCode(code: unknown): code is LimitCode {
  return typeof code === 'string' && LIMIT_CODES.has(code);
}
