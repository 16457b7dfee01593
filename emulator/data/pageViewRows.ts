import type { Article, EmulatorStore, PageViewRow } from '../store';
import { drawDurationSeconds, drawScroll } from './engagement';
import { RFV_WINDOW_MS, rfvScore } from './loyalty';
import { adsImpressionsFor, revenueMicrosFor } from './monetization';
import { Random, WeightedChoice } from './random';
import { DEVICE_SHARES, type Reader } from './readers';
import { DEVICE_TYPES, type DeviceType, type UserType } from './traffic';
import { TrafficSampler } from './trafficSampler';
import type { ViewPlan } from './viewPlan';

/** Rows are built as objects only this many at a time; the store keeps columns. */
const CHUNK_ROWS = 8192;
/** Share of a reader's views on their usual device. */
const USUAL_DEVICE_SHARE = 0.85;

/**
 * Turns the plan (who read what when, sorted by time) into enriched rows and
 * appends them to the store. Durations come first because the RFV of a view
 * depends on the durations of the reader's earlier views.
 */
export function appendPageViews(
  store: EmulatorStore,
  random: Random,
  plan: ViewPlan,
  articles: readonly Article[],
  readers: readonly Reader[],
): void {
  const total = plan.time.length;
  const deviceChoice = new WeightedChoice(DEVICE_TYPES.map((d) => DEVICE_SHARES[d]));
  const device = new Uint8Array(total);
  const duration = new Int32Array(total);
  for (let v = 0; v < total; v++) {
    const r = readers[plan.reader[v]];
    const d = random.chance(USUAL_DEVICE_SHARE) ? DEVICE_TYPES.indexOf(r.device) : deviceChoice.draw(random);
    device[v] = d;
    duration[v] = drawDurationSeconds(random, DEVICE_TYPES[d], r.loyal);
  }
  const { rfv, firstOfReader } = scoreReaders(plan, readers.length, duration);

  const traffic = new TrafficSampler();
  let chunk: PageViewRow[] = [];
  for (let v = 0; v < total; v++) {
    const r = readers[plan.reader[v]];
    const deviceType: DeviceType = DEVICE_TYPES[device[v]];
    const userType: UserType = r.subscriber ? 'subscriber' : r.isNew && firstOfReader[v] === 1 ? 'new' : 'returning';
    const article = plan.article[v];
    const ads = adsImpressionsFor(duration[v], deviceType, userType);
    chunk.push({
      article,
      clientId: r.clientId,
      time: plan.time[v],
      durationSeconds: duration[v],
      scroll: drawScroll(random, duration[v]),
      adsImpressions: ads,
      revenueMicros: revenueMicrosFor(ads, deviceType, articles[article].sections),
      rfv: rfv[v],
      traffic: traffic.draw(random, r.loyal, deviceType, userType),
    });
    if (chunk.length === CHUNK_ROWS) {
      store.addPageViews(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) store.addPageViews(chunk);
}

/**
 * The RFV of every view from the reader's views in the 30 days before it
 * (loyalty.ts), and which view is each reader's first. Views are grouped per
 * reader in time order; two pointers bound each view's window.
 */
function scoreReaders(plan: ViewPlan, readerCount: number, duration: Int32Array): { rfv: Float64Array; firstOfReader: Uint8Array } {
  const total = plan.time.length;
  const offsets = new Int32Array(readerCount + 1);
  for (let v = 0; v < total; v++) offsets[plan.reader[v] + 1]++;
  for (let r = 0; r < readerCount; r++) offsets[r + 1] += offsets[r];
  const cursor = offsets.slice(0, readerCount);
  const byReader = new Int32Array(total);
  for (let v = 0; v < total; v++) byReader[cursor[plan.reader[v]]++] = v;

  const rfv = new Float64Array(total);
  const firstOfReader = new Uint8Array(total);
  const prefixDuration = new Float64Array(total + 1);
  for (let k = 0; k < total; k++) prefixDuration[k + 1] = prefixDuration[k] + duration[byReader[k]];
  for (let r = 0; r < readerCount; r++) {
    const from = offsets[r];
    const to = offsets[r + 1];
    if (from < to) firstOfReader[byReader[from]] = 1;
    let lo = from;
    let hi = from;
    for (let k = from; k < to; k++) {
      const t = plan.time[byReader[k]];
      while (plan.time[byReader[lo]] < t - RFV_WINDOW_MS) lo++;
      while (plan.time[byReader[hi]] < t) hi++;
      const views = hi - lo;
      rfv[byReader[k]] = rfvScore(
        {
          views,
          durationSeconds: prefixDuration[hi] - prefixDuration[lo],
          lastViewTime: views > 0 ? plan.time[byReader[hi - 1]] : 0,
        },
        t,
      );
    }
  }
  return { rfv, firstOfReader };
}
