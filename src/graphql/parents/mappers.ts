import type { Fetched } from '../../kernel/fetched';
import type { Cell } from '../../reporting/tables/analyticsTables';
import type { TableSpec } from '../../reporting/tables/tableSpec';
import type { DashboardMetricResultWire, MetricName, RecommendationWire } from '../../kernel/wire';

/**
 * Resolver parents that are not plain wire payloads (codegen `mappers`).
 * A recommendation's rank is its index in the upstream list, which the item
 * itself does not carry, so the list resolvers attach it.
 */
export type RankedRecommendation = RecommendationWire & { position: number; fetchedAt: number };

/** One metric's result, with when the whole answer arrived from the reporting API. */
export type DashboardResultParent = DashboardMetricResultWire & { fetchedAt: number };

/**
 * One article's analytics: the table that answers it, the window and age of
 * the numbers it was served (the table's own, never the ask's), and the
 * metrics its selection asked for, already loaded (a metric missing here is
 * loaded by its field; an Error is that field's answer).
 */
export interface ArticleAnalyticsParent {
  url: string;
  spec: TableSpec;
  window: { from: number; to: number };
  fetchedAt: number;
  values: ReadonlyMap<MetricName, Cell | Error>;
}

/** One row of a `topArticles` ranking, with the window and age of the table it was read from. */
export interface ArticleRankingParent {
  rank: number;
  value: number;
  url: string;
  from: number;
  to: number;
  fetchedAt: number;
}

/** An Article reference: all this subgraph knows of an article is its key. */
export interface ArticleRef {
  url: string;
}

/** A Reader reference: the client id is the whole identity. */
export interface ReaderRef {
  clientId: string;
}

export function rankRecommendations({ value, fetchedAt }: Fetched<readonly RecommendationWire[]>): RankedRecommendation[] {
  const ranked = new Array<RankedRecommendation>(value.length);
  // Field by field, one object shape for every item: a spread of each parsed item showed in the raw path's profile.
  // The wire type's fields are all the resolvers read; an upstream's extra fields were never served.
  for (let index = 0; index < value.length; index++) ranked[index] = rank(value[index], index + 1, fetchedAt);
  return ranked;
}

function rank(item: RecommendationWire, position: number, fetchedAt: number): RankedRecommendation {
  return {
    url: item.url,
    title: item.title,
    img: item.img,
    authors: item.authors,
    sections: item.sections,
    publishTime: item.publishTime,
    position,
    fetchedAt,
  };
}

export function stampDashboardResults({ value, fetchedAt }: Fetched<readonly DashboardMetricResultWire[]>): DashboardResultParent[] {
  return value.map((result) => ({ ...result, fetchedAt }));
}
