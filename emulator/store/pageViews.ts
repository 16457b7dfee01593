import { Column } from './column';
import { Dictionary } from './dictionary';
import { TRAFFIC_DIMENSIONS, type PageViewRow, type TrafficDimension } from './types';

/**
 * Page views stored column-wise: half a million rows scan in a few
 * milliseconds this way, and take a fraction of the memory of row objects.
 * Rows are append-only and never reordered, so a row index is a stable id.
 */
export class PageViewTable {
  length = 0;
  readonly time = new Column(Float64Array, this.capacity);
  readonly article = new Column(Int32Array, this.capacity);
  readonly client = new Column(Int32Array, this.capacity);
  readonly duration = new Column(Int32Array, this.capacity);
  readonly scroll = new Column(Uint8Array, this.capacity);
  readonly ads = new Column(Uint16Array, this.capacity);
  readonly revenueMicros = new Column(Int32Array, this.capacity);
  readonly rfv = new Column(Float32Array, this.capacity);
  /** One dictionary-encoded column per traffic dimension. */
  readonly traffic: Record<TrafficDimension, { column: Column<Uint16Array>; dictionary: Dictionary }>;

  constructor(private readonly capacity = 1024) {
    this.traffic = Object.fromEntries(
      TRAFFIC_DIMENSIONS.map((d) => [d, { column: new Column(Uint16Array, capacity), dictionary: new Dictionary() }]),
    ) as PageViewTable['traffic'];
  }

  /** Appends a row whose client id was already interned; returns its index. */
  append(row: PageViewRow, clientIndex: number): number {
    const i = this.length;
    this.time.set(i, row.time);
    this.article.set(i, row.article);
    this.client.set(i, clientIndex);
    this.duration.set(i, row.durationSeconds);
    this.scroll.set(i, row.scroll);
    this.ads.set(i, row.adsImpressions);
    this.revenueMicros.set(i, row.revenueMicros);
    this.rfv.set(i, row.rfv);
    for (const d of TRAFFIC_DIMENSIONS) {
      const { column, dictionary } = this.traffic[d];
      column.set(i, dictionary.intern(row.traffic[d]));
    }
    this.length = i + 1;
    return i;
  }
}
