import { InMemoryLRUCache, type KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/**
 * Heap bytes a parsed and validated document holds per character of query
 * text: the AST, its `loc` objects and graphql-js's token chain. Measured in
 * the bench (bench/README.md); the figure errs high so the byte limit holds.
 */
export const DOCUMENT_BYTES_PER_CHARACTER = 80;

/**
 * How many documents seen once are remembered (their keys only, about 150
 * bytes each): a document sent again within this many other one-offs is a
 * repeat, and is kept from then on.
 */
const SEEN_ONCE_KEYS = 10_000;

/**
 * Apollo Server's document store, with two changes:
 * - a byte bound that means what it says. Apollo's default sizes a document
 *   by its JSON, which leaves out the token chain every `loc` points into:
 *   under 100,000 distinct query texts the process grew by ~600 MB while the
 *   cache believed it held 30 MB;
 * - a document is kept from its second sighting (a doorkeeper, as in
 *   TinyLFU). Clients repeat their documents, so they are cached on their
 *   second request; a flood of one-off documents (distinct literals in each
 *   subscribe, say) evicts none of them, and its documents die young instead
 *   of aging in the old generation until a major GC (issue 35: the heap held
 *   ~30 MB of evicted documents for 30–90 s after 10,000 distinct subscribes).
 */
class DocumentCache implements KeyValueCache<DocumentNode> {
  private readonly documents: InMemoryLRUCache<DocumentNode>;
  private readonly seenOnce = new LRUCache<string, true>({ max: SEEN_ONCE_KEYS });

  constructor(maxBytes: number) {
    this.documents = new InMemoryLRUCache<DocumentNode>({ maxSize: Math.max(1, maxBytes), sizeCalculation: estimateDocumentBytes });
  }

  get(key: string): Promise<DocumentNode | undefined> {
    return this.documents.get(key);
  }

  async set(key: string, document: DocumentNode): Promise<void> {
    if (this.seenOnce.delete(key)) await this.documents.set(key, document);
    else this.seenOnce.set(key, true);
  }

  delete(key: string): Promise<boolean | void> {
    this.seenOnce.delete(key);
    return this.documents.delete(key);
  }

  /** The keys of the documents kept (not of those seen once). */
  keys(): string[] {
    return this.documents.keys();
  }
}

export function createDocumentCache(maxBytes: number): DocumentCache {
  return new DocumentCache(maxBytes);
}

export function estimateDocumentBytes(document: DocumentNode): number {
  const characters = document.loc === undefined ? 1_000 : document.loc.end - document.loc.start;
  return Math.max(1, characters * DOCUMENT_BYTES_PER_CHARACTER);
}
