import { DEMO_DOMAINS, type Bucket } from './domains';
import { Random, WeightedChoice } from './random';
import { DEVICE_TYPES, type DeviceType } from './traffic';

export interface Reader {
  clientId: string;
  /** Page views this reader makes in the 30-day window (≥ 1). */
  views: number;
  /** Heavy readers: they come direct or by newsletter and read longer. */
  loyal: boolean;
  subscriber: boolean;
  /** First seen in the window (otherwise they had history before it). */
  isNew: boolean;
  /** The device most of their views come from. */
  device: DeviceType;
  /** Share of their views per bucket (index into the buckets list). */
  bucketWeights: Float64Array;
}

/** Readers with at least this many views in the window are "loyal". */
const LOYAL_VIEWS = 20;
/**
 * Reading appetite is log-normal with a soft ceiling: about half the readers
 * read 1–3 articles in the window, a few hundred read hundreds, and those few
 * make most of the page views, as on real news sites.
 */
const APPETITE_MEDIAN = 3;
const APPETITE_SIGMA = 1.9;
const APPETITE_CEILING = 200;
/** Share of a reader's views that goes to their one or two favourite sections. */
const FAVOURITE_SHARE = 0.6;
/** Share of readers who also read a second site, and how much of their reading goes there. */
const SECOND_SITE_READERS = 0.12;
const SECOND_SITE_SHARE = 0.2;

export const DEVICE_SHARES: Readonly<Record<DeviceType, number>> = { mobile: 0.6, desktop: 0.32, tablet: 0.08 };

/**
 * `count` readers sharing `totalViews` page views with a heavy-tailed
 * (Zipf-like) appetite, each with a home site and favourite sections there, so
 * a loyal reader's history concentrates on one or two sections.
 */
export function generateReaders(random: Random, count: number, totalViews: number, buckets: readonly Bucket[]): Reader[] {
  const views = allocateViews(random, count, totalViews);
  const sites = DEMO_DOMAINS.map((_, site) => siteSections(buckets, site));
  const siteChoice = new WeightedChoice(DEMO_DOMAINS.map((d) => d.readerShare));
  const deviceChoice = new WeightedChoice(DEVICE_TYPES.map((d) => DEVICE_SHARES[d]));
  const readers: Reader[] = [];
  for (let i = 0; i < count; i++) {
    const n = views[i];
    const suffix = Array.from(random.bytes(4), (b) => b.toString(16).padStart(2, '0')).join('');
    readers.push({
      clientId: `c_${String(i + 1).padStart(6, '0')}${suffix}`,
      views: n,
      loyal: n >= LOYAL_VIEWS,
      subscriber: random.chance(0.02 + 0.25 * Math.min(1, n / 200)),
      isNew: random.chance(n <= 3 ? 0.55 : n < LOYAL_VIEWS ? 0.3 : 0.1),
      device: DEVICE_TYPES[deviceChoice.draw(random)],
      bucketWeights: readingInterests(random, buckets.length, sites, siteChoice),
    });
  }
  return readers;
}

/**
 * Splits `total` views over `count` readers: one each, the rest in proportion
 * to their appetite. Cumulative rounding keeps the sum exact.
 */
function allocateViews(random: Random, count: number, total: number): Int32Array {
  const extra = new Float64Array(count);
  let extraSum = 0;
  for (let i = 0; i < count; i++) {
    const raw = APPETITE_MEDIAN * Math.exp(APPETITE_SIGMA * random.normal());
    extra[i] = Math.max(0, raw / (1 + raw / APPETITE_CEILING) - 1);
    extraSum += extra[i];
  }
  const spare = total - count;
  const views = new Int32Array(count);
  let cumulative = 0;
  let assigned = 0;
  for (let i = 0; i < count; i++) {
    cumulative += extraSum > 0 ? (extra[i] / extraSum) * spare : spare / count;
    const share = Math.round(cumulative) - assigned;
    assigned += share;
    views[i] = 1 + share;
  }
  return views;
}

/** A site's buckets and a draw over them by section weight. */
interface SiteSections {
  buckets: number[];
  /** Each bucket's share of the site's section weight. */
  shares: number[];
  choice: WeightedChoice;
}

function siteSections(buckets: readonly Bucket[], site: number): SiteSections {
  const indexes = buckets.flatMap((b, index) => (b.domainIndex === site ? [index] : []));
  const weights = indexes.map((index) => buckets[index].weight);
  const sum = weights.reduce((a, b) => a + b, 0);
  return { buckets: indexes, shares: weights.map((w) => w / sum), choice: new WeightedChoice(weights) };
}

function readingInterests(random: Random, bucketCount: number, sites: readonly SiteSections[], siteChoice: WeightedChoice): Float64Array {
  const weights = new Float64Array(bucketCount);
  const home = siteChoice.draw(random);
  addSiteInterest(random, weights, sites[home], 1);
  if (random.chance(SECOND_SITE_READERS)) {
    const other = (home + 1 + random.int(sites.length - 1)) % sites.length;
    for (let b = 0; b < weights.length; b++) weights[b] *= 1 - SECOND_SITE_SHARE;
    addSiteInterest(random, weights, sites[other], SECOND_SITE_SHARE);
  }
  return weights;
}

/** Adds `share` of interest in one site: mostly its favourite sections, the rest by the site's section weights. */
function addSiteInterest(random: Random, weights: Float64Array, site: SiteSections, share: number): void {
  site.buckets.forEach((index, k) => {
    weights[index] += share * (1 - FAVOURITE_SHARE) * site.shares[k];
  });
  const first = site.buckets[site.choice.draw(random)];
  const second = site.buckets[site.choice.draw(random)];
  if (first === second || random.chance(0.5)) {
    weights[first] += share * FAVOURITE_SHARE;
  } else {
    weights[first] += share * FAVOURITE_SHARE * (2 / 3);
    weights[second] += share * FAVOURITE_SHARE * (1 / 3);
  }
}
