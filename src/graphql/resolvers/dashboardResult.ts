import type { DashboardResultResolvers } from '../__generated__/resolvers-types';
import { dateTimeOf } from '../scalars/dateTime';

export const DashboardResult: DashboardResultResolvers = {
  rows: (result) => result.actualData.values,
  series: (result) => result.actualData.data,
  fetchedAt: (result) => dateTimeOf(result.fetchedAt),
};
