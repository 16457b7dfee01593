import type { DimensionValueResolvers } from '../__generated__/resolvers-types';

export const DimensionValue: DimensionValueResolvers = {
  dimension: (item) => item.type,
};
