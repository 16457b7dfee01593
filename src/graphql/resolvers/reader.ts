import type { ReaderResolvers } from '../__generated__/resolvers-types';
import { rejectInvalid } from '../errors';
import { rankRecommendations } from '../parents/mappers';
import { representationKey } from './representationKey';
import { hintEntityReference, hintRenderAnswer } from '../responseCache/cacheHints';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Reader: ReaderResolvers = {
  // async: @apollo/subgraph calls this inside a map, so a synchronous throw would fail the whole batch,
  // while a rejection fails only this entity.
  __resolveReference: async (reference, _context, info) => {
    // A reader's id is one person's: only a per-caller cache may keep it.
    hintEntityReference(info, 'PRIVATE');
    return { clientId: representationKey('Reader', 'clientId', reference.clientId) };
  },

  recommendations: async (reader, { experienceId, canonicalUrl, domain }, context, info) => {
    const params = toRenderParams({ experienceId, canonicalUrl, domain, clientId: reader.clientId });
    rejectInvalid(validateRenderParams(params));
    const answer = await context.recommendations.load(params);
    // Always one reader's: never for a shared cache.
    hintRenderAnswer(info, context.cacheTtls, answer.fetchedAt, 'PRIVATE', context.now);
    return rankRecommendations(answer);
  },
};
