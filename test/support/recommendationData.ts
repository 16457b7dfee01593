/** A `Recommendation` as the subgraph's tests select it (see RECOMMENDATION_FIELDS in each test). */
export interface RecommendationData {
  position: number;
  url: string;
  title: string;
  publishTime: string;
  publishedAt: string | null;
  article: { url: string };
}
