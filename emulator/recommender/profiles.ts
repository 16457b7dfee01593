import type { RankingProfile } from '../store';
import { DAY_MS, affinity, hasAffinity, publishTime, similarity, trend, windowReaders, windowViews, type RankingContext } from './signals';

/**
 * How candidates are ordered: by `primary` descending, then `secondary`
 * descending (when given), then url ascending, so equal scores still give
 * one deterministic order.
 */
export interface Scores {
  primary: Float64Array;
  secondary?: Float64Array;
}

/** Weights of the normalized components of `balanced`; they sum to 1. */
const BALANCED_WEIGHTS = { similarity: 0.35, popularity: 0.3, recency: 0.2, personalization: 0.15 } as const;

export function scoreCandidates(profile: RankingProfile, ctx: RankingContext): Scores {
  switch (profile) {
    case 'mostRead':
      return { primary: windowReaders(ctx) };
    case 'popular':
      return { primary: windowViews(ctx) };
    case 'latest':
      return { primary: publishTime(ctx) };
    case 'trendy':
      return { primary: trend(ctx), secondary: windowViews(ctx) };
    case 'similar':
      // Without a canonical_url there is nothing to resemble; popular is the fallback.
      if (ctx.similarityQuery === undefined) return { primary: windowViews(ctx) };
      return { primary: similarity(ctx), secondary: windowViews(ctx) };
    case 'personalized':
      // An unknown client, or one without usable history, gets the popular ranking.
      if (!hasAffinity(ctx.history)) return { primary: windowViews(ctx) };
      return { primary: affinity(ctx), secondary: windowViews(ctx) };
    case 'balanced':
      return { primary: balanced(ctx) };
  }
}

/**
 * Weighted blend of similarity, popularity, recency and personalization, each
 * scaled to 0..1 over the candidate set so that no unit dominates:
 * - similarity: cosine / max cosine;
 * - popularity: ln(1 + views) / ln(1 + max views) (log, so one viral article
 *   does not flatten everyone else to 0);
 * - recency: 0.5^(age / half-life), half-life = half the window (at least a
 *   day), / its max;
 * - personalization: affinity / max affinity.
 * A component that is all 0 (no canonical_url, no client history) adds the
 * same to every candidate and so leaves the order to the others.
 */
function balanced(ctx: RankingContext): Float64Array {
  const similar = scaleToMax(similarity(ctx));
  const popular = scaleToMax(windowViews(ctx).map(Math.log1p));
  const recent = scaleToMax(recency(ctx));
  const personal = scaleToMax(affinity(ctx));
  const blend = new Float64Array(ctx.candidates.length);
  for (let i = 0; i < blend.length; i++) {
    blend[i] =
      BALANCED_WEIGHTS.similarity * similar[i] +
      BALANCED_WEIGHTS.popularity * popular[i] +
      BALANCED_WEIGHTS.recency * recent[i] +
      BALANCED_WEIGHTS.personalization * personal[i];
  }
  return blend;
}

function recency(ctx: RankingContext): Float64Array {
  const halfLifeMs = Math.max(1, ctx.experience.timeWindowDays / 2) * DAY_MS;
  return publishTime(ctx).map((published) => Math.pow(0.5, Math.max(0, ctx.now - published) / halfLifeMs));
}

function scaleToMax(values: Float64Array): Float64Array {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  return max > 0 ? values.map((value) => value / max) : values;
}
