import type { ArticleRankingResolvers } from '../__generated__/resolvers-types';

export const ArticleRanking: ArticleRankingResolvers = {
  // An entity reference: other subgraphs (e.g. a CMS) resolve the rest of the article from its url.
  article: (ranking) => ({ url: ranking.url }),
};
