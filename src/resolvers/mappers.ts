import type { Fetched } from '../datasources/fetched';
import type { DashboardMetricResultWire, RecommendationWire } from '../datasources/wire';

/**
 * Resolver parents that are not plain wire payloads (codegen `mappers`).
 * A recommendation's rank is its index in the upstream list, which the item
 * itself does not carry, so the list resolvers attach it.
 */
export type RankedRecommendation = RecommendationWire & { position: number; fetchedAt: number };

/** One metric's result, with when the whole answer arrived from the reporting API. */
export type DashboardResultParent = DashboardMetricResultWire & { fetchedAt: number };

/** An Article reference: all this subgraph knows of an article is its key. */
export interface ArticleRef {
  url: string;
}

/** A Reader reference: the client id is the whole identity. */
export interface ReaderRef {
  clientId: string;
}

export function rankRecommendations({ value, fetchedAt }: Fetched<readonly RecommendationWire[]>): RankedRecommendation[] {
  return value.map((item, index) => ({ ...item, position: index + 1, fetchedAt }));
}

export function stampDashboardResults({ value, fetchedAt }: Fetched<readonly DashboardMetricResultWire[]>): DashboardResultParent[] {
  return value.map((result) => ({ ...result, fetchedAt }));
}
