import type { EmulatorStore } from '../store';
import * as field from './accumulators';
import type { Accumulators } from './accumulators';
import type { CellCoder, CellTable } from './cells';
import type { CompiledFilters } from './filters';
import type { Groups } from './groups';
import { rowRangeFor } from './rowRange';
import type { TimeWindow } from './types';

// Field offsets copied into module constants: transpilers that compile imported
// bindings to getters would otherwise put a call in every hot-loop access.
const ADS = field.ADS;
const ARTICLES = field.ARTICLES;
const DURATION = field.DURATION;
const REVENUE_MICROS = field.REVENUE_MICROS;
const RFV_MICROS = field.RFV_MICROS;
const SCROLL = field.SCROLL;
const STRIDE = field.STRIDE;
const USERS = field.USERS;
const VIEWS = field.VIEWS;

/** Where the scans put their sums. */
export interface ScanTarget {
  window: TimeWindow;
  filters: CompiledFilters;
  /** The first bucket's start and the bucket width, in ms. */
  firstBucket: number;
  bucketMs: number;
  total: Accumulators;
  buckets: Accumulators;
  /** Null when there is no groupBy. */
  grouping: { coder: CellCoder; cells: CellTable; sums: Accumulators } | null;
  withRfv: boolean;
}

/** What the distinct-users pass needs from the page-view scan. */
export interface MatchedRows {
  /** The scanned rows [from, to); the arrays below are indexed by row − from. */
  from: number;
  to: number;
  /** cell + 1 of each matched row, 0 for rows that did not match. */
  rowCell: Int32Array;
  rowBucket: Uint16Array;
  /** Distinct clients with at least one matched row. */
  clients: number[];
}

/**
 * One pass over the page-view columns: every row in the window that passes
 * the filters is added to its time bucket and its cell, then the buckets to
 * the total.
 *
 * `withUsers`: when rows are in time order and there is no groupBy, distinct
 * users are counted right here (each client's buckets then come in order, so
 * "last bucket counted for this client" dedupes). Otherwise the matched rows
 * are recorded and returned for countDistinctUsers.
 */
export function scanPageViews(store: EmulatorStore, target: ScanTarget, withUsers: boolean): MatchedRows | null {
  const views = store.views;
  const { from, to, sorted } = rowRangeFor(store, target.window);
  const time = views.time.data;
  const articleOf = views.article.data;
  const clientOf = views.client.data;
  const duration = views.duration.data;
  const scroll = views.scroll.data;
  const ads = views.ads.data;
  const revenue = views.revenueMicros.data;
  const rfv = views.rfv.data;
  const { start, end } = target.window;
  const mask = target.filters.articleMask;
  const trafficFilters = target.filters.traffic;
  const { firstBucket, bucketMs, withRfv, grouping } = target;
  const total = target.total.data;
  const buckets = target.buckets.data;

  const inlineUsers = withUsers && sorted && grouping === null;
  const lastBucketOf = inlineUsers ? new Int32Array(store.clients.size).fill(-1) : null;
  const matched: MatchedRows | null =
    withUsers && !inlineUsers ? { from, to, rowCell: new Int32Array(to - from), rowBucket: new Uint16Array(to - from), clients: [] } : null;
  const clientSeen = matched ? new Uint8Array(store.clients.size) : null;

  rows: for (let i = from; i < to; i++) {
    const t = time[i];
    if (t < start || t > end) continue;
    const a = articleOf[i];
    if (mask !== null && mask[a] === 0) continue;
    for (let k = 0; k < trafficFilters.length; k++) {
      const f = trafficFilters[k];
      if (f.allowed[f.column[i]] === 0) continue rows;
    }
    const bucket = Math.floor((t - firstBucket) / bucketMs);
    const r = withRfv ? Math.round(rfv[i] * 1e6) : 0;
    add(buckets, bucket * STRIDE, duration[i], scroll[i], r, ads[i], revenue[i]);
    let cell = 0;
    if (grouping !== null) {
      const { coder, cells } = grouping;
      let code = coder.articleCode[a];
      for (let k = 0; k < coder.traffic.length; k++) code += coder.traffic[k].column[i] * coder.traffic[k].multiplier;
      cell = cells.cellOf(code, a, i);
      grouping.sums.ensure(cells.count);
      add(grouping.sums.data, cell * STRIDE, duration[i], scroll[i], r, ads[i], revenue[i]);
    }
    if (matched !== null && clientSeen !== null) {
      matched.rowCell[i - from] = cell + 1;
      matched.rowBucket[i - from] = bucket;
      const c = clientOf[i];
      if (clientSeen[c] === 0) {
        clientSeen[c] = 1;
        matched.clients.push(c);
      }
    } else if (lastBucketOf !== null) {
      const c = clientOf[i];
      const last = lastBucketOf[c];
      if (last !== bucket) {
        if (last === -1) total[USERS] += 1;
        buckets[bucket * STRIDE + USERS] += 1;
        lastBucketOf[c] = bucket;
      }
    }
  }
  // The page-view sums are integers, so the total is exactly the sum of the buckets.
  for (let o = 0; o < buckets.length; o += STRIDE) {
    for (const f of [VIEWS, DURATION, SCROLL, RFV_MICROS, ADS, REVENUE_MICROS]) total[f] += buckets[o + f];
  }
  return matched;
}

function add(s: Float64Array, o: number, duration: number, scroll: number, rfvMicros: number, ads: number, revenueMicros: number): void {
  s[o + VIEWS] += 1;
  s[o + DURATION] += duration;
  s[o + SCROLL] += scroll;
  s[o + RFV_MICROS] += rfvMicros;
  s[o + ADS] += ads;
  s[o + REVENUE_MICROS] += revenueMicros;
}

/**
 * Distinct users overall, per bucket and per group. Walking the matched
 * clients' rows client by client lets a stamp array ("last client counted
 * here") stand in for a Set per bucket and per group.
 */
export function countDistinctUsers(
  store: EmulatorStore,
  matched: MatchedRows,
  target: ScanTarget,
  grouped: { groups: Groups; sums: Accumulators } | null,
): void {
  const { from, to, rowCell, rowBucket, clients } = matched;
  const bucketCount = target.buckets.data.length / STRIDE;
  const bucketStamp = new Int32Array(bucketCount).fill(-1);
  const bucketUsers = new Int32Array(bucketCount);
  const groupCount = grouped ? grouped.groups.count : 0;
  const groupStamp = new Int32Array(groupCount).fill(-1);
  // Compact counters: the accumulator rows are 64 bytes apart, which thrashes the cache with many groups.
  const groupUsers = new Int32Array(groupCount);
  const groupStart = grouped ? grouped.groups.groupStart : null;
  const groupList = grouped ? grouped.groups.groupList : null;
  for (const c of clients) {
    // A client's rows are in append order, so the scanned ones are a contiguous run.
    const own = store.clientRows[c];
    for (let k = firstAtOrAbove(own, from); k < own.length; k++) {
      const r = own[k];
      if (r >= to) break;
      const cellPlusOne = rowCell[r - from];
      if (cellPlusOne === 0) continue;
      const b = rowBucket[r - from];
      if (bucketStamp[b] !== c) {
        bucketStamp[b] = c;
        bucketUsers[b]++;
      }
      if (groupStart === null || groupList === null) continue;
      for (let j = groupStart[cellPlusOne - 1]; j < groupStart[cellPlusOne]; j++) {
        const g = groupList[j];
        if (groupStamp[g] !== c) {
          groupStamp[g] = c;
          groupUsers[g]++;
        }
      }
    }
  }
  target.total.data[USERS] = clients.length;
  for (let b = 0; b < bucketCount; b++) target.buckets.data[b * STRIDE + USERS] = bucketUsers[b];
  if (grouped) for (let g = 0; g < groupCount; g++) grouped.sums.data[g * STRIDE + USERS] = groupUsers[g];
}

function firstAtOrAbove(sorted: readonly number[], bound: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * newArticles: articles published in the window that pass the article
 * filters, added to the total, their publication bucket and their cell.
 */
export function scanNewArticles(store: EmulatorStore, target: ScanTarget): void {
  const { start, end } = target.window;
  const mask = target.filters.articleMask;
  store.articles.forEach((article, a) => {
    const t = article.publishTime;
    if (t < start || t > end || (mask !== null && mask[a] === 0)) return;
    target.total.data[ARTICLES] += 1;
    target.buckets.data[Math.floor((t - target.firstBucket) / target.bucketMs) * STRIDE + ARTICLES] += 1;
    if (target.grouping !== null) {
      const { coder, cells, sums } = target.grouping;
      const cell = cells.cellOf(coder.articleCode[a], a, -1);
      sums.ensure(cells.count);
      sums.data[cell * STRIDE + ARTICLES] += 1;
    }
  });
}
