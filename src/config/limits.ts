import type { EnvReader } from './env';

/** What one operation may spend; see "Limits on one operation" in docs/operations.md. */
export interface LimitsConfig {
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxTokens: number;
  maxUpstreamCallsPerOperation: number;
  /** Parsed documents kept, in estimated heap bytes; 0 turns the cache off. */
  documentCacheBytes: number;
  persistedQueriesOnly: boolean;
  /** Required with persistedQueriesOnly. */
  persistedQueriesManifest?: string;
}

export const DEFAULT_LIMITS: LimitsConfig = Object.freeze({
  maxDepth: 7,
  maxAliases: 15,
  maxDirectives: 50,
  maxTokens: 1_000,
  maxUpstreamCallsPerOperation: 50,
  documentCacheBytes: 16 * 1024 * 1024,
  persistedQueriesOnly: false,
});

export function readLimits(reader: EnvReader): LimitsConfig {
  const limits: LimitsConfig = {
    maxDepth: reader.integer('MAX_QUERY_DEPTH', { min: 1, max: 1_000 }) ?? DEFAULT_LIMITS.maxDepth,
    maxAliases: reader.integer('MAX_QUERY_ALIASES', { min: 0, max: 100_000 }) ?? DEFAULT_LIMITS.maxAliases,
    maxDirectives: reader.integer('MAX_QUERY_DIRECTIVES', { min: 0, max: 100_000 }) ?? DEFAULT_LIMITS.maxDirectives,
    maxTokens: reader.integer('MAX_QUERY_TOKENS', { min: 1, max: 10_000_000 }) ?? DEFAULT_LIMITS.maxTokens,
    maxUpstreamCallsPerOperation:
      reader.integer('MAX_UPSTREAM_CALLS_PER_OPERATION', { min: 1, max: 1_000_000 }) ?? DEFAULT_LIMITS.maxUpstreamCallsPerOperation,
    documentCacheBytes: reader.integer('DOCUMENT_CACHE_MAX_BYTES', { min: 0, max: 64 * 1024 ** 3 }) ?? DEFAULT_LIMITS.documentCacheBytes,
    persistedQueriesOnly: reader.boolean('PERSISTED_QUERIES_ONLY') ?? DEFAULT_LIMITS.persistedQueriesOnly,
  };
  const manifest = reader.raw('PERSISTED_QUERIES_MANIFEST');
  if (manifest !== undefined) limits.persistedQueriesManifest = manifest;
  if (limits.persistedQueriesOnly && limits.persistedQueriesManifest === undefined) {
    reader.problem('PERSISTED_QUERIES_ONLY=true needs PERSISTED_QUERIES_MANIFEST: the path of the persisted operations manifest');
  }
  return limits;
}
