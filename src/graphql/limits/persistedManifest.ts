import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Operation bodies by id, and the ids by body hash (for clients that send the text). */
export interface PersistedManifest {
  byId: ReadonlyMap<string, string>;
  bodyHashes: ReadonlySet<string>;
}

/**
 * Reads a persisted-operation manifest in either format clients produce:
 * Apollo's persisted query list (`{"format": "apollo-persisted-query-manifest",
 * "version": 1, "operations": [{"id", "body", ...}]}`) or graphql-codegen's
 * client preset `persisted-documents.json` (`{"<hash>": "<document>"}`).
 * Throws one message naming the file and the problem.
 */
export function loadPersistedManifest(path: string): PersistedManifest {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`PERSISTED_QUERIES_MANIFEST ${path} cannot be read as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const entries = manifestEntries(json);
  if (typeof entries === 'string') throw new Error(`PERSISTED_QUERIES_MANIFEST ${path}: ${entries}`);
  if (entries.length === 0) throw new Error(`PERSISTED_QUERIES_MANIFEST ${path} lists no operations`);
  return { byId: new Map(entries), bodyHashes: new Set(entries.map(([, body]) => sha256(body))) };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The [id, body] pairs, or a description of what is wrong. */
function manifestEntries(json: unknown): [string, string][] | string {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'expected a JSON object';
  const record = json as Record<string, unknown>;
  if (record.format === 'apollo-persisted-query-manifest') return apolloEntries(record);
  const entries = Object.entries(record);
  const bad = entries.find(([, body]) => typeof body !== 'string' || body.trim() === '');
  if (bad !== undefined) return `entry ${JSON.stringify(bad[0])} is not a GraphQL document string (expected {"<id>": "<document>"})`;
  return entries as [string, string][];
}

function apolloEntries(record: Record<string, unknown>): [string, string][] | string {
  if (record.version !== 1) return `unsupported apollo-persisted-query-manifest version ${JSON.stringify(record.version)} (expected 1)`;
  if (!Array.isArray(record.operations)) return 'operations is not an array';
  const entries: [string, string][] = [];
  for (const [index, operation] of record.operations.entries()) {
    const { id, body } = (typeof operation === 'object' && operation !== null ? operation : {}) as { id?: unknown; body?: unknown };
    if (typeof id !== 'string' || id === '' || typeof body !== 'string' || body.trim() === '') {
      return `operations[${index}] needs a non-empty string id and body`;
    }
    entries.push([id, body]);
  }
  return entries;
}
