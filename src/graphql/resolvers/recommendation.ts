import type { RecommendationResolvers } from '../__generated__/resolvers-types';
import { upstreamTimeToIso } from '../../kernel/instants';
import { dateTimeOf } from '../scalars/dateTime';

export const Recommendation: RecommendationResolvers = {
  position: (item) => item.position,
  // An unreadable publishTime is the upstream's formatting quirk, not a reason to fail the item.
  publishedAt: (item) => upstreamTimeToIso(item.publishTime) ?? null,
  img: (item) => item.img ?? null,
  fetchedAt: (item) => dateTimeOf(item.fetchedAt),
  article: (item) => ({ url: item.url }),
};
