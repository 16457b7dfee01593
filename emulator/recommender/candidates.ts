import type { EmulatorStore, Experience } from '../store';
import type { RecommenderIndexes } from './indexes';
import { normalizeName } from './tokenize';

/**
 * The articles an experience may recommend at `now`: of its domain, already
 * published, passing its section filters (compared case-insensitively), and
 * not in `excluded` (the canonical article and what the client already read).
 * Ascending article index, so every later step sees the same order.
 */
export function selectCandidates(
  store: EmulatorStore,
  indexes: RecommenderIndexes,
  experience: Experience,
  now: number,
  excluded: (article: number) => boolean,
): Int32Array {
  const members = indexes.articlesOf(experience.domain);
  const sections = indexes.articleFeatures.sections;
  const include = nameSet(experience.sections.include);
  const exclude = nameSet(experience.sections.exclude);
  const selected = new Int32Array(members.length);
  let count = 0;
  for (const article of members) {
    if (store.articles[article].publishTime > now || excluded(article)) continue;
    const articleSections = sections[article];
    if (include !== undefined && !articleSections.some((s) => include.has(s))) continue;
    if (exclude !== undefined && articleSections.some((s) => exclude.has(s))) continue;
    selected[count++] = article;
  }
  return selected.slice(0, count);
}

/** An absent or empty list means "no filter". */
function nameSet(names: readonly string[] | undefined): Set<string> | undefined {
  return names === undefined || names.length === 0 ? undefined : new Set(names.map(normalizeName));
}
