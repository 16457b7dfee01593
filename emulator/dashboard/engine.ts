import type { EmulatorStore } from '../store';
import { Accumulators } from './accumulators';
import { articleIndexOf } from './articleIndex';
import { CellTable, buildCellCoder } from './cells';
import { BUCKET_MS, bucketFloor } from './dates';
import { compileFilters } from './filters';
import { foldCellsIntoGroups, type Groups } from './groups';
import { needsPageViews, needsRfv, needsUsers } from './metrics';
import { countDistinctUsers, scanNewArticles, scanPageViews, type ScanTarget } from './scan';
import type { DashboardQuery } from './types';

/** Everything a validated query sums up, before metrics are computed and rows ordered. */
export interface Aggregation {
  total: Accumulators;
  buckets: Accumulators;
  bucketCount: number;
  firstBucket: number;
  bucketMs: number;
  /** Null when there is no groupBy. */
  groups: { groups: Groups; sums: Accumulators } | null;
}

export function aggregate(store: EmulatorStore, query: DashboardQuery): Aggregation {
  const articles = articleIndexOf(store);
  const bucketMs = BUCKET_MS[query.granularity];
  const firstBucket = bucketFloor(query.window.start, bucketMs);
  const bucketCount = (bucketFloor(query.window.end, bucketMs) - firstBucket) / bucketMs + 1;
  const grouped = query.groupBy.length > 0;
  const coder = grouped ? buildCellCoder(store, articles, query.groupBy) : null;
  const target: ScanTarget = {
    window: query.window,
    filters: compileFilters(store, articles, query.filters),
    firstBucket,
    bucketMs,
    total: new Accumulators(1),
    buckets: new Accumulators(bucketCount),
    grouping: coder ? { coder, cells: new CellTable(coder.size), sums: new Accumulators(64) } : null,
    withRfv: needsRfv(query.metrics),
  };

  const withUsers = needsUsers(query.metrics);
  const matched = needsPageViews(query.metrics) ? scanPageViews(store, target, withUsers) : null;
  if (query.metrics.includes('newArticles')) scanNewArticles(store, target);

  let groups: Aggregation['groups'] = null;
  if (target.grouping !== null) {
    const { cells, sums: cellSums } = target.grouping;
    const folded = foldCellsIntoGroups(store, articles, query.groupBy, cells);
    const sums = new Accumulators(folded.count);
    for (let cell = 0; cell < cells.count; cell++) {
      for (let k = folded.groupStart[cell]; k < folded.groupStart[cell + 1]; k++) {
        sums.addRow(folded.groupList[k], cellSums, cell);
      }
    }
    groups = { groups: folded, sums };
  }
  if (matched !== null) countDistinctUsers(store, matched, target, groups);

  return { total: target.total, buckets: target.buckets, bucketCount, firstBucket, bucketMs, groups };
}
