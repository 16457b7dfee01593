import type { ArticleRankingResolvers } from '../__generated__/resolvers-types';
import { dateTimeOf } from '../scalars/dateTime';

export const ArticleRanking: ArticleRankingResolvers = {
  // An entity reference: other subgraphs (e.g. a CMS) resolve the rest of the article from its url.
  article: (ranking) => ({ url: ranking.url }),
  from: (ranking) => dateTimeOf(ranking.from),
  to: (ranking) => dateTimeOf(ranking.to),
  fetchedAt: (ranking) => dateTimeOf(ranking.fetchedAt),
};
