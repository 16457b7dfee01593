import type { EmulatorStore, Experience } from '../store';
import { selectCandidates } from './candidates';
import { readingHistory } from './history';
import { indexesFor } from './indexes';
import type { RenderParams } from './params';
import { scoreCandidates, type Scores } from './profiles';
import type { RankingContext } from './signals';
import { articleTerms, urlTerms, type TermCounts } from './textIndex';
import { selectTop } from './topK';

/** Indexes of the articles `experience` recommends for this request, best first. */
export function rankArticles(store: EmulatorStore, experience: Experience, params: RenderParams, now: number): number[] {
  const indexes = indexesFor(store);
  const canonical = params.canonicalUrl === undefined ? undefined : findArticle(store, params.canonicalUrl);
  const history = readingHistory(store, indexes.articleFeatures, params.clientId, now);
  const candidates = selectCandidates(store, indexes, experience, now, (article) => article === canonical || history.read.has(article));
  const ctx: RankingContext = {
    store,
    indexes,
    experience,
    now,
    candidates,
    similarityQuery: similarityQuery(store, params.canonicalUrl, canonical),
    history,
  };
  const scores = scoreCandidates(experience.rankingProfile, ctx);
  const compare = compareBy(scores, (i) => store.articles[candidates[i]].url);
  const best = selectTop(candidates.length, experience.size, compare);
  return best.map((i) => candidates[i]);
}

/**
 * The store article for a canonical URL: as given, or else without its query
 * and fragment (tracking parameters do not make another article).
 */
function findArticle(store: EmulatorStore, url: string): number | undefined {
  const exact = store.articleIndex(url);
  if (exact !== undefined) return exact;
  const bare = new URL(url);
  bare.search = '';
  bare.hash = '';
  return store.articleIndex(bare.href);
}

function similarityQuery(store: EmulatorStore, canonicalUrl: string | undefined, canonical: number | undefined): TermCounts | undefined {
  if (canonicalUrl === undefined) return undefined;
  return canonical === undefined ? urlTerms(canonicalUrl) : articleTerms(store.articles[canonical]);
}

function compareBy(scores: Scores, urlOf: (i: number) => string): (a: number, b: number) => number {
  const { primary, secondary } = scores;
  return (a, b) => {
    if (primary[a] !== primary[b]) return primary[b] - primary[a];
    if (secondary !== undefined && secondary[a] !== secondary[b]) return secondary[b] - secondary[a];
    const urlA = urlOf(a);
    const urlB = urlOf(b);
    return urlA < urlB ? -1 : urlA > urlB ? 1 : 0;
  };
}
