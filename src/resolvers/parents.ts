import type { RecommendationWire } from '../datasources/wire';

/**
 * Resolver parents that are not plain wire payloads (codegen `mappers`).
 * A recommendation's rank is its index in the upstream list, which the item
 * itself does not carry, so the list resolvers attach it.
 */
export type RankedRecommendation = RecommendationWire & { position: number };

/** An Article reference: all this subgraph knows of an article is its key. */
export interface ArticleRef {
  url: string;
}

/** A Reader reference: the client id is the whole identity. */
export interface ReaderRef {
  clientId: string;
}

export function rankRecommendations(items: readonly RecommendationWire[]): RankedRecommendation[] {
  return items.map((item, index) => ({ ...item, position: index + 1 }));
}
