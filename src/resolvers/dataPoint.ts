import type { DataPointResolvers } from '../__generated__/resolvers-types';
import { DASHBOARD_QUERY_PATH } from '../datasources/reportingAPI';
import { UpstreamError } from '../http/upstreamError';
import { upstreamTimeToIso } from '../scalars/instants';

export const DataPoint: DataPointResolvers = {
  time: (point) => {
    const iso = upstreamTimeToIso(point.key);
    if (iso === undefined) {
      throw new UpstreamError({
        service: 'reporting',
        endpoint: DASHBOARD_QUERY_PATH,
        kind: 'bad_response',
        reason: `a series bucket key is not a "yyyy-MM-dd HH:mm:ss" time (got ${JSON.stringify(point.key.slice(0, 40))})`,
      });
    }
    return iso;
  },
};
