import type { EmulatorStore } from '../store';

/**
 * Page views regrouped by article, so that any time window can be counted
 * exactly with two binary searches per article instead of a scan of the whole
 * table. Nothing here depends on the request's clock: moving `now` needs no
 * rebuild, only a change of the data does.
 *
 * Layout is CSR (compressed rows): article `a` owns `[start[a], start[a+1])`
 * of `times` and `rows`, and `[readerStart[a], readerStart[a+1])` of
 * `readerLastTimes`.
 */
export class ViewIndex {
  private constructor(
    private readonly store: EmulatorStore,
    private readonly start: Int32Array,
    /** View times, ascending within each article. */
    private readonly times: Float64Array,
    /** Row ids in insertion order within each article (for the rare exact distinct scan). */
    private readonly rows: Int32Array,
    private readonly readerStart: Int32Array,
    /** For each (article, reader) pair its latest view time, ascending within each article. */
    private readonly readerLastTimes: Float64Array,
    /** One slot per client, for de-duplicating readers in a scan. */
    private readonly seenStamp: Uint32Array,
  ) {}

  private stamp = 0;

  static build(store: EmulatorStore): ViewIndex {
    const articleCount = store.articles.length;
    const rowCount = store.views.length;
    const articleOf = store.views.article.data;
    const timeOf = store.views.time.data;

    const start = new Int32Array(articleCount + 1);
    for (let r = 0; r < rowCount; r++) start[articleOf[r] + 1]++;
    for (let a = 0; a < articleCount; a++) start[a + 1] += start[a];
    const times = new Float64Array(rowCount);
    const rows = new Int32Array(rowCount);
    const cursor = start.slice(0, articleCount);
    for (let r = 0; r < rowCount; r++) {
      const slot = cursor[articleOf[r]]++;
      times[slot] = timeOf[r];
      rows[slot] = r;
    }
    for (let a = 0; a < articleCount; a++) times.subarray(start[a], start[a + 1]).sort();

    const { readerStart, readerLastTimes } = buildReaderLastTimes(store, start, rows);
    return new ViewIndex(store, start, times, rows, readerStart, readerLastTimes, new Uint32Array(store.clients.size));
  }

  /** Page views of `article` with `from <= time <= to`. */
  views(article: number, from: number, to: number): number {
    const lo = this.start[article];
    const hi = this.start[article + 1];
    return upperBound(this.times, lo, hi, to) - lowerBound(this.times, lo, hi, from);
  }

  /** Distinct clients with a view of `article` at `from <= time <= to`. */
  readers(article: number, from: number, to: number): number {
    const hi = this.start[article + 1];
    const latestView = hi > this.start[article] ? this.times[hi - 1] : -Infinity;
    if (latestView <= to) {
      // Nothing after `to`: a reader was in the window exactly when their latest view is.
      const lo = this.readerStart[article];
      const end = this.readerStart[article + 1];
      return end - lowerBound(this.readerLastTimes, lo, end, from);
    }
    return this.scanReaders(article, from, to);
  }

  /** Exact distinct count for windows that end before the article's latest view (a clock in the past). */
  private scanReaders(article: number, from: number, to: number): number {
    const timeOf = this.store.views.time.data;
    const clientOf = this.store.views.client.data;
    const stamp = this.nextStamp();
    let count = 0;
    for (let i = this.start[article]; i < this.start[article + 1]; i++) {
      const row = this.rows[i];
      const time = timeOf[row];
      if (time < from || time > to) continue;
      const client = clientOf[row];
      if (this.seenStamp[client] !== stamp) {
        this.seenStamp[client] = stamp;
        count++;
      }
    }
    return count;
  }

  private nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.seenStamp.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

/**
 * For every (article, reader) pair, the reader's latest view of the article,
 * grouped by article. One pass over the rows already grouped by article;
 * `owner` marks which article last touched a client, so the per-client
 * scratch never needs clearing between articles.
 */
function buildReaderLastTimes(
  store: EmulatorStore,
  start: Int32Array,
  rows: Int32Array,
): { readerStart: Int32Array; readerLastTimes: Float64Array } {
  const articleCount = store.articles.length;
  const timeOf = store.views.time.data;
  const clientOf = store.views.client.data;
  const owner = new Int32Array(store.clients.size).fill(-1);
  const latest = new Float64Array(store.clients.size);
  const touched = new Int32Array(store.clients.size);
  const readerStart = new Int32Array(articleCount + 1);
  // At most one pair per row; trimmed at the end.
  const readerLastTimes = new Float64Array(rows.length);
  let pairs = 0;
  for (let article = 0; article < articleCount; article++) {
    let readers = 0;
    for (let i = start[article]; i < start[article + 1]; i++) {
      const row = rows[i];
      const client = clientOf[row];
      const time = timeOf[row];
      if (owner[client] !== article) {
        owner[client] = article;
        latest[client] = time;
        touched[readers++] = client;
      } else if (time > latest[client]) {
        latest[client] = time;
      }
    }
    for (let k = 0; k < readers; k++) readerLastTimes[pairs + k] = latest[touched[k]];
    readerLastTimes.subarray(pairs, pairs + readers).sort();
    pairs += readers;
    readerStart[article + 1] = pairs;
  }
  return { readerStart, readerLastTimes: readerLastTimes.slice(0, pairs) };
}

/** First index in `[lo, hi)` with `values[i] >= target`. */
function lowerBound(values: Float64Array, lo: number, hi: number, target: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in `[lo, hi)` with `values[i] > target`. */
function upperBound(values: Float64Array, lo: number, hi: number, target: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
