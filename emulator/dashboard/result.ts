import type { Aggregation } from './engine';
import { formatWireTime } from './dates';
import { TOTAL_KEY } from './groupKey';
import { metricValue } from './metrics';
import type { DashboardMetricResult, DashboardPoint, DashboardQuery, DashboardRow } from './types';

/**
 * The response: one object per requested metric, in request order. Every
 * metric's `values` lists the same groups in the same order (by the `order`
 * metric, then by key ascending), so row i of one metric is row i of every
 * other: a client can zip them into a table.
 */
export function buildResults(query: DashboardQuery, aggregation: Aggregation): DashboardMetricResult[] {
  const { total, buckets, bucketCount, firstBucket, bucketMs, groups } = aggregation;
  const page = groups === null ? [] : orderedPage(query, groups);
  const bucketKeys = Array.from({ length: bucketCount }, (_, b) => formatWireTime(firstBucket + b * bucketMs));
  return query.metrics.map((metric) => {
    const values: DashboardRow[] =
      groups === null
        ? [{ key: TOTAL_KEY, total: metricValue(metric, total.data, 0), items: [] }]
        : page.map((g) => ({
            key: groups.groups.keyOf(g),
            total: metricValue(metric, groups.sums.data, g),
            items: groups.groups.itemsOf(g),
          }));
    const data: DashboardPoint[] = bucketKeys.map((key, b) => ({ key, value: metricValue(metric, buckets.data, b) }));
    return {
      metric,
      total: metricValue(metric, total.data, 0),
      granularity: query.granularity,
      availableGranularities: query.availableGranularities,
      actualData: { values, data },
    };
  });
}

/**
 * Group indexes of the requested page. Only the groups that can reach the
 * page (at or above the value of its last row) are fully sorted, which keeps
 * key hashing and comparisons off the long tail of a large grouping.
 */
function orderedPage(query: DashboardQuery, { groups, sums }: NonNullable<Aggregation['groups']>): number[] {
  const end = Math.min(groups.count, query.from + query.limit);
  if (query.from >= end) return [];
  const value = Float64Array.from({ length: groups.count }, (_, g) => metricValue(query.order.metric, sums.data, g));
  const direction = query.order.sort === 'ASC' ? 1 : -1;
  const ascending = Float64Array.from(value).sort();
  const threshold = direction === 1 ? ascending[end - 1] : ascending[groups.count - end];
  const candidates: number[] = [];
  for (let g = 0; g < groups.count; g++) {
    if ((value[g] - threshold) * direction <= 0) candidates.push(g);
  }
  candidates.sort((x, y) => {
    if (value[x] !== value[y]) return (value[x] - value[y]) * direction;
    const kx = groups.keyOf(x);
    const ky = groups.keyOf(y);
    return kx < ky ? -1 : kx > ky ? 1 : 0;
  });
  return candidates.slice(query.from, end);
}
