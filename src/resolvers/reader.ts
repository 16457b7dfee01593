import type { ReaderResolvers } from '../__generated__/resolvers-types';
import { hintFreshness } from './cacheHints';
import { rejectInvalid } from './invalidArguments';
import { rankRecommendations } from './parents';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Reader: ReaderResolvers = {
  __resolveReference: (reference) => ({ clientId: reference.clientId }),

  recommendations: async (reader, { experienceId, canonicalUrl, domain }, context, info) => {
    const params = toRenderParams({ experienceId, canonicalUrl, domain, clientId: reader.clientId });
    rejectInvalid(validateRenderParams(params));
    const answer = await context.recommendations.load(params);
    // Always one reader's: never for a shared cache.
    hintFreshness(info, { ttlSeconds: context.cacheTtls.renderTtlSeconds, fetchedAt: answer.fetchedAt, scope: 'PRIVATE', now: Date.now() });
    return rankRecommendations(answer);
  },
};
