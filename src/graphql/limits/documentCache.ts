import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';

/**
 * Heap bytes a parsed and validated document holds per character of query
 * text: the AST, its `loc` objects and graphql-js's token chain. Measured in
 * the bench (bench/README.md); the figure errs high so the byte limit holds.
 */
export const DOCUMENT_BYTES_PER_CHARACTER = 80;

/**
 * Apollo Server's document store with a byte bound that means what it says.
 * Apollo's default sizes a document by its JSON, which leaves out the token
 * chain every `loc` points into: under 100,000 distinct query texts the
 * process grew by ~600 MB while the cache believed it held 30 MB.
 */
export function createDocumentCache(maxBytes: number): InMemoryLRUCache<DocumentNode> {
  return new InMemoryLRUCache<DocumentNode>({ maxSize: Math.max(1, maxBytes), sizeCalculation: estimateDocumentBytes });
}

export function estimateDocumentBytes(document: DocumentNode): number {
  const characters = document.loc === undefined ? 1_000 : document.loc.end - document.loc.start;
  return Math.max(1, characters * DOCUMENT_BYTES_PER_CHARACTER);
}
