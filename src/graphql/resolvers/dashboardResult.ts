import type { DashboardResultResolvers } from '../__generated__/resolvers-types';

export const DashboardResult: DashboardResultResolvers = {
  rows: (result) => result.actualData.values,
  series: (result) => result.actualData.data,
  fetchedAt: (result) => new Date(result.fetchedAt).toISOString(),
};
