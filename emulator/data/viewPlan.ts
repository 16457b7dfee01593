import type { Article } from '../store';
import { diurnalAccepts } from './diurnal';
import { Random, WeightedChoice } from './random';
import type { Reader } from './readers';

const DAY_MS = 86_400_000;

/**
 * How an article's audience decays with age: a mixture of a fast component
 * (the news cycle: most views in the first day) and a slow one (the long tail
 * from search and links). Shares and mean ages in days.
 */
const DECAY = [
  { share: 0.75, meanDays: 0.75 },
  { share: 0.25, meanDays: 6 },
] as const;

/** Zipf exponent of article popularity within a site. */
const POPULARITY_EXPONENT = 0.85;

/** Who read what when: parallel columns sorted by time (ties by generation order). */
export interface ViewPlan {
  time: Float64Array;
  article: Int32Array;
  reader: Int32Array;
}

export interface ViewWindow {
  /** First and last possible view time, epoch ms on whole seconds. */
  start: number;
  end: number;
}

/**
 * Pairs readers' views with articles. Each reader's views are first spread
 * over the (site, section) buckets by the reader's interests; within a bucket,
 * articles are drawn by popularity × their audience still inside the window,
 * and each view's time by the article's decay after its publish time. The
 * bucket's views are then dealt to its readers in random order.
 */
export function planPageViews(
  random: Random,
  articles: readonly Article[],
  bucketOf: Int32Array,
  bucketCount: number,
  readers: readonly Reader[],
  window: ViewWindow,
): ViewPlan {
  const readersByBucket = dealReadersToBuckets(random, readers, bucketCount);
  const audience = new ArticleAudience(random, articles, window);

  const total = readersByBucket.slots.length;
  const time = new Float64Array(total);
  const article = new Int32Array(total);
  const reader = readersByBucket.slots;
  for (let bucket = 0; bucket < bucketCount; bucket++) {
    const from = readersByBucket.offsets[bucket];
    const to = readersByBucket.offsets[bucket + 1];
    if (from === to) continue;
    const members = articlesOf(bucketOf, bucket);
    if (members.length === 0) throw new Error(`bucket ${bucket} has readers but no articles`);
    const choice = new WeightedChoice(members.map((a) => audience.weight(a)));
    random.shuffle(reader.subarray(from, to));
    for (let v = from; v < to; v++) {
      const a = members[choice.draw(random)];
      article[v] = a;
      time[v] = audience.drawViewTime(random, a);
    }
  }
  return sortByTime(window, time, article, reader);
}

/** Every reader's views as slots grouped by bucket (counting sort): `slots[offsets[b]..offsets[b+1])`. */
function dealReadersToBuckets(random: Random, readers: readonly Reader[], bucketCount: number): { slots: Int32Array; offsets: Int32Array } {
  const total = readers.reduce((sum, r) => sum + r.views, 0);
  const bucketOfSlot = new Int32Array(total);
  const counts = new Int32Array(bucketCount);
  let s = 0;
  readers.forEach((r) => {
    const choice = new WeightedChoice(r.bucketWeights);
    for (let k = 0; k < r.views; k++) {
      const bucket = choice.draw(random);
      bucketOfSlot[s++] = bucket;
      counts[bucket]++;
    }
  });
  const offsets = new Int32Array(bucketCount + 1);
  for (let b = 0; b < bucketCount; b++) offsets[b + 1] = offsets[b] + counts[b];
  const cursor = offsets.slice(0, bucketCount);
  const slots = new Int32Array(total);
  s = 0;
  readers.forEach((r, index) => {
    for (let k = 0; k < r.views; k++) slots[cursor[bucketOfSlot[s++]]++] = index;
  });
  return { slots, offsets };
}

function articlesOf(bucketOf: Int32Array, bucket: number): number[] {
  const members: number[] = [];
  for (let a = 0; a < bucketOf.length; a++) if (bucketOf[a] === bucket) members.push(a);
  return members;
}

/**
 * Per article: its popularity and, per decay component, the share of its
 * audience that falls inside the window (which is how an article published a
 * minute ago, or 40 days ago, gets few views in it).
 */
class ArticleAudience {
  private readonly publish: Float64Array;
  private readonly popularity: Float64Array;
  /** e^(-age/mean) at the window's start and end, per component: [a*2 + c]. */
  private readonly atStart: Float64Array;
  private readonly atEnd: Float64Array;

  constructor(
    random: Random,
    articles: readonly Article[],
    private readonly window: ViewWindow,
  ) {
    const n = articles.length;
    this.publish = Float64Array.from(articles, (a) => a.publishTime);
    this.popularity = zipfPopularity(random, articles);
    this.atStart = new Float64Array(n * DECAY.length);
    this.atEnd = new Float64Array(n * DECAY.length);
    for (let a = 0; a < n; a++) {
      const firstAge = Math.max(0, window.start - this.publish[a]);
      const lastAge = Math.max(0, window.end - this.publish[a]);
      DECAY.forEach(({ meanDays }, c) => {
        this.atStart[a * DECAY.length + c] = Math.exp(-firstAge / (meanDays * DAY_MS));
        this.atEnd[a * DECAY.length + c] = Math.exp(-lastAge / (meanDays * DAY_MS));
      });
    }
  }

  weight(a: number): number {
    let inWindow = 0;
    DECAY.forEach(({ share }, c) => {
      inWindow += share * this.componentMass(a, c);
    });
    return this.popularity[a] * inWindow;
  }

  /** A time in [max(publish, window start), window end], by the decay curve and the daily rhythm. */
  drawViewTime(random: Random, a: number): number {
    const massFast = DECAY[0].share * this.componentMass(a, 0);
    const massSlow = DECAY[1].share * this.componentMass(a, 1);
    for (let attempt = 0; ; attempt++) {
      const c = random.next() * (massFast + massSlow) < massFast ? 0 : 1;
      const hi = this.atStart[a * DECAY.length + c];
      const lo = this.atEnd[a * DECAY.length + c];
      // Inverse CDF of the exponential truncated to the window.
      const age = -Math.log(hi - random.next() * (hi - lo)) * DECAY[c].meanDays * DAY_MS;
      const time = this.publish[a] + Math.floor(age / 1000) * 1000;
      const clamped = Math.min(this.window.end, Math.max(this.window.start, this.publish[a], time));
      // Bounded: a window shorter than a day may have no active hour at all.
      if (attempt >= 8 || diurnalAccepts(random, clamped)) return clamped;
    }
  }

  private componentMass(a: number, c: number): number {
    return this.atStart[a * DECAY.length + c] - this.atEnd[a * DECAY.length + c];
  }
}

/** Zipf weights by a random rank within each site: a few hits, a long tail. */
function zipfPopularity(random: Random, articles: readonly Article[]): Float64Array {
  const popularity = new Float64Array(articles.length);
  const bySite = new Map<string, number[]>();
  articles.forEach((article, index) => {
    const list = bySite.get(article.domain) ?? [];
    list.push(index);
    bySite.set(article.domain, list);
  });
  for (const members of bySite.values()) {
    random.shuffle(members);
    members.forEach((a, rank) => {
      popularity[a] = Math.pow(rank + 3, -POPULARITY_EXPONENT);
    });
  }
  return popularity;
}

/**
 * Sorts the plan by time: a counting sort on whole seconds since the window's
 * start (a few million buckets at most), which is stable, so ties keep
 * generation order, and is several times faster than a comparison sort.
 */
function sortByTime(window: ViewWindow, time: Float64Array, article: Int32Array, reader: Int32Array): ViewPlan {
  const total = time.length;
  const seconds = Math.round((window.end - window.start) / 1000) + 1;
  const offsets = new Int32Array(seconds + 1);
  for (let v = 0; v < total; v++) offsets[(time[v] - window.start) / 1000 + 1]++;
  for (let s = 0; s < seconds; s++) offsets[s + 1] += offsets[s];
  const sorted: ViewPlan = {
    time: new Float64Array(total),
    article: new Int32Array(total),
    reader: new Int32Array(total),
  };
  for (let v = 0; v < total; v++) {
    const k = offsets[(time[v] - window.start) / 1000]++;
    sorted.time[k] = time[v];
    sorted.article[k] = article[v];
    sorted.reader[k] = reader[v];
  }
  return sorted;
}
