import type { ReaderResolvers } from '../__generated__/resolvers-types';
import { rejectInvalid } from '../errors';
import { rankRecommendations } from './mappers';
import { toRenderParams, validateRenderParams } from './renderParams';

export const Reader: ReaderResolvers = {
  __resolveReference: (reference) => ({ clientId: reference.clientId }),

  recommendations: async (reader, { experienceId, canonicalUrl, domain }, context) => {
    const params = toRenderParams({ experienceId, canonicalUrl, domain, clientId: reader.clientId });
    rejectInvalid(validateRenderParams(params));
    return rankRecommendations(await context.recommendations.load(params));
  },
};
