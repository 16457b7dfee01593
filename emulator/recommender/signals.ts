import type { EmulatorStore, Experience } from '../store';
import type { ReadingHistory } from './history';
import type { RecommenderIndexes } from './indexes';
import type { TermCounts } from './textIndex';

export const DAY_MS = 86_400_000;
/** "Recent" for the trend signal: the last day (or the whole window when it is shorter). */
const TREND_RECENT_MS = DAY_MS;

/** Everything a ranking signal may read for one request. */
export interface RankingContext {
  store: EmulatorStore;
  indexes: RecommenderIndexes;
  experience: Experience;
  now: number;
  candidates: Int32Array;
  /** The document candidates should resemble; undefined without a canonical_url. */
  similarityQuery: TermCounts | undefined;
  history: ReadingHistory;
}

/** Each signal returns one raw score per candidate, aligned with `ctx.candidates`. */
export type Signal = (ctx: RankingContext) => Float64Array;

function windowStart(ctx: RankingContext): number {
  return ctx.now - Math.max(0, ctx.experience.timeWindowDays) * DAY_MS;
}

/** Page views in the experience's window. */
export const windowViews: Signal = (ctx) => {
  const from = windowStart(ctx);
  return perCandidate(ctx, (article) => ctx.indexes.views.views(article, from, ctx.now));
};

/** Distinct readers in the experience's window. */
export const windowReaders: Signal = (ctx) => {
  const from = windowStart(ctx);
  return perCandidate(ctx, (article) => ctx.indexes.views.readers(article, from, ctx.now));
};

export const publishTime: Signal = (ctx) => perCandidate(ctx, (article) => ctx.store.articles[article].publishTime);

/**
 * Recent growth: views in the last day against the article's average daily
 * views over the window, smoothed with +1 so a first view is not infinite
 * growth, and weighted by log(1 + recent) so that 2 views after 0 do not beat
 * 200 after 20:
 *   trend = (recent + 1) / (windowViews / windowDays + 1) · ln(1 + recent)
 * No view in the last day scores 0.
 */
export const trend: Signal = (ctx) => {
  const from = windowStart(ctx);
  const recentFrom = Math.max(from, ctx.now - TREND_RECENT_MS);
  const windowDays = Math.max(1, ctx.experience.timeWindowDays);
  return perCandidate(ctx, (article) => {
    const recent = ctx.indexes.views.views(article, recentFrom, ctx.now);
    if (recent === 0) return 0;
    const dailyAverage = ctx.indexes.views.views(article, from, ctx.now) / windowDays;
    return ((recent + 1) / (dailyAverage + 1)) * Math.log1p(recent);
  });
};

/** Cosine similarity of each candidate's TF-IDF vector to the query document; all 0 without a query. */
export const similarity: Signal = (ctx) => {
  if (ctx.similarityQuery === undefined) return new Float64Array(ctx.candidates.length);
  const byArticle = new Float64Array(ctx.store.articles.length);
  ctx.indexes.textIndexOf(ctx.experience.domain).addSimilarities(ctx.similarityQuery, byArticle);
  return perCandidate(ctx, (article) => byArticle[article]);
};

/** Share of reading that goes to a section vs. to an author, in the affinity score. */
const AFFINITY_SHARES = { section: 0.7, author: 0.3 } as const;

/**
 * The client's affinity · the article's features (binary: has the section /
 * the author): 0.7 · Σ section affinity + 0.3 · Σ author affinity. All 0 for
 * a client without history.
 */
export const affinity: Signal = (ctx) => {
  const { sectionAffinity, authorAffinity } = ctx.history;
  const { sections, authors } = ctx.indexes.articleFeatures;
  return perCandidate(ctx, (article) => {
    let sectionScore = 0;
    for (const section of sections[article]) sectionScore += sectionAffinity.get(section) ?? 0;
    let authorScore = 0;
    for (const author of authors[article]) authorScore += authorAffinity.get(author) ?? 0;
    return AFFINITY_SHARES.section * sectionScore + AFFINITY_SHARES.author * authorScore;
  });
};

export function hasAffinity(history: ReadingHistory): boolean {
  return history.sectionAffinity.size > 0 || history.authorAffinity.size > 0;
}

function perCandidate(ctx: RankingContext, score: (article: number) => number): Float64Array {
  const scores = new Float64Array(ctx.candidates.length);
  for (let i = 0; i < ctx.candidates.length; i++) scores[i] = score(ctx.candidates[i]);
  return scores;
}
