import type { EmulatorStore } from '../store';
import { generateArticles } from './articles';
import { demoBuckets } from './domains';
import { seedExperiences } from './experiences';
import { appendPageViews } from './pageViewRows';
import { Random } from './random';
import { generateReaders } from './readers';
import { planPageViews } from './viewPlan';

export interface DemoDataOptions {
  /** Same seed, scale and now → the same store contents. */
  seed: number;
  /** 1 = 3,000 articles, 20,000 readers, 500,000 page views; counts are linear in it. */
  scale: number;
  /** Epoch ms; page views fall in the 30 days before it, articles in the 45 days before it. */
  now: number;
}

export interface DemoDataCounts {
  articles: number;
  readers: number;
  pageViews: number;
}

const AT_SCALE_ONE: DemoDataCounts = { articles: 3000, readers: 20_000, pageViews: 500_000 };
/** Floors for tiny scales, so every site, section and profile still has data. */
const MINIMUM: DemoDataCounts = { articles: 18, readers: 20, pageViews: 200 };
const MAX_SCALE = 10;
const DAY_MS = 86_400_000;
const VIEW_WINDOW_MS = 30 * DAY_MS;

/** Independent random streams per phase (see Random.stream). */
const PHASE = { articles: 0, readers: 1, plan: 2, rows: 3, experiences: 4 } as const;

/** The counts generateDemoData produces for `scale` (articles may exceed this by a few, see articles.ts). */
export function demoDataCounts(scale: number): DemoDataCounts {
  const readers = Math.max(MINIMUM.readers, Math.round(AT_SCALE_ONE.readers * scale));
  return {
    articles: Math.max(MINIMUM.articles, Math.round(AT_SCALE_ONE.articles * scale)),
    readers,
    pageViews: Math.max(MINIMUM.pageViews, readers, Math.round(AT_SCALE_ONE.pageViews * scale)),
  };
}

/**
 * Fills an empty store with demo articles, page views and the seeded
 * experiences. Deterministic: nothing here reads the real clock or
 * Math.random.
 */
export function generateDemoData(store: EmulatorStore, options: DemoDataOptions): void {
  validateOptions(store, options);
  const { seed, scale } = options;
  // Whole seconds, the wire's resolution; ceil/floor keep the window inside [now − 30 d, now].
  const end = Math.floor(options.now / 1000) * 1000;
  const start = Math.ceil((options.now - VIEW_WINDOW_MS) / 1000) * 1000;
  const counts = demoDataCounts(scale);
  const buckets = demoBuckets();

  const { articles, bucketOf } = generateArticles(Random.stream(seed, PHASE.articles), counts.articles, buckets, end);
  store.upsertArticles(articles);
  const readers = generateReaders(Random.stream(seed, PHASE.readers), counts.readers, counts.pageViews, buckets);
  const plan = planPageViews(Random.stream(seed, PHASE.plan), articles, bucketOf, buckets.length, readers, { start, end });
  appendPageViews(store, Random.stream(seed, PHASE.rows), plan, articles, readers);
  seedExperiences(store.experiences, Random.stream(seed, PHASE.experiences));
}

function validateOptions(store: EmulatorStore, { seed, scale, now }: DemoDataOptions): void {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (!(Number.isFinite(scale) && scale > 0 && scale <= MAX_SCALE)) {
    throw new RangeError(`scale must be a number in (0, ${MAX_SCALE}], got ${scale}`);
  }
  if (!Number.isFinite(now)) throw new RangeError(`now must be epoch milliseconds, got ${now}`);
  if (store.articles.length > 0 || store.views.length > 0 || store.experiences.size > 0) {
    throw new Error('generateDemoData needs an empty store');
  }
}
