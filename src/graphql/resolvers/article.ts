import type { ArticleResolvers } from '../__generated__/resolvers-types';
import { resolveArticleAnalytics } from '../analytics/resolveArticleAnalytics';
import { rejectInvalid } from '../errors';
import { rankRecommendations } from '../parents/mappers';
import { representationKey } from './representationKey';
import { hintEntityReference, hintRenderAnswer, recommendationScope } from '../responseCache/cacheHints';
import { toRenderParams, validateRenderParams } from './renderParams';

/** The article's url is its canonical URL: an invalid one is reported against `url`, where it came from. */
const RELATED_PATHS = { id: 'experienceId', canonicalUrl: 'url', domain: 'url', clientId: 'clientId' };

export const Article: ArticleResolvers = {
  // All this subgraph knows of an article is its url; the fields below need nothing more.
  // async: @apollo/subgraph calls this inside a map, so a synchronous throw would fail the whole batch,
  // while a rejection fails only this entity.
  __resolveReference: async (reference, _context, info) => {
    hintEntityReference(info, 'PUBLIC');
    return { url: representationKey('Article', 'url', reference.url) };
  },

  related: async (article, { experienceId, clientId }, context, info) => {
    const params = toRenderParams({ experienceId, canonicalUrl: article.url, clientId });
    rejectInvalid(validateRenderParams(params, RELATED_PATHS));
    const answer = await context.recommendations.load(params);
    hintRenderAnswer(info, context.cacheTtls, answer.fetchedAt, recommendationScope(params.clientId), context.now);
    return rankRecommendations(answer);
  },

  analytics: (article, { window }, context, info) => resolveArticleAnalytics(article.url, window, context, info),
};
