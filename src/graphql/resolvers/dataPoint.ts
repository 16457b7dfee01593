import type { DataPointResolvers } from '../__generated__/resolvers-types';
import { checkedUpstreamTimeToIso } from '../../kernel/instants';

// Bucket keys are checked when the answer arrives (src/upstream/datasources/reportingAPI.ts).
export const DataPoint: DataPointResolvers = {
  time: (point) => checkedUpstreamTimeToIso(point.key),
};
