import type { Dictionary, EmulatorStore } from '../store';
import { articleValues, type ArticleIndex } from './articleIndex';
import { isTrafficDimension, type DashboardFilter } from './types';

/**
 * Filters compiled before the scan, so the hot loop does array lookups only:
 * article-dimension filters fold into one bitset over articles, each traffic
 * filter becomes a bitset over its dictionary ids.
 *
 * Semantics: filters are AND-ed; the values of one filter are OR-ed; `neq`
 * and `nlike` are the exact negations of `eq` and `like` (no value may match).
 * `eq` is exact, `like` a case-insensitive substring. For `section` and
 * `author` an article matches `eq`/`like` when ANY of its values does.
 */
export interface CompiledFilters {
  /** 1 for articles that pass every article filter; null when there are none. */
  articleMask: Uint8Array | null;
  traffic: { column: Uint32Array; allowed: Uint8Array }[];
}

export function compileFilters(store: EmulatorStore, articles: ArticleIndex, filters: readonly DashboardFilter[]): CompiledFilters {
  const compiled: CompiledFilters = { articleMask: null, traffic: [] };
  for (const filter of filters) {
    if (isTrafficDimension(filter.dimension)) {
      const { column, dictionary } = store.views.traffic[filter.dimension];
      compiled.traffic.push({ column: column.data, allowed: dictionaryMask(dictionary, filter) });
    } else {
      const matches = articleMatches(store, articles, filter);
      const mask = (compiled.articleMask ??= new Uint8Array(articles.count).fill(1));
      for (let a = 0; a < articles.count; a++) mask[a] &= matches[a];
    }
  }
  return compiled;
}

/** Whether one string matches the filter's values, before negation. */
function valueMatcher(filter: DashboardFilter): (value: string) => boolean {
  if (filter.operator === 'eq' || filter.operator === 'neq') {
    const wanted = new Set(filter.values);
    return (value) => wanted.has(value);
  }
  const needles = filter.values.map((v) => v.toLowerCase());
  return (value) => {
    const haystack = value.toLowerCase();
    return needles.some((needle) => haystack.includes(needle));
  };
}

const isNegated = (filter: DashboardFilter) => filter.operator === 'neq' || filter.operator === 'nlike';

/** 1 per dictionary id that passes the filter, negation applied. */
function dictionaryMask(dictionary: Dictionary, filter: DashboardFilter): Uint8Array {
  const matches = valueMatcher(filter);
  const pass = isNegated(filter) ? 0 : 1;
  return Uint8Array.from(dictionary.values, (v) => (matches(v) ? pass : 1 - pass));
}

/** 1 per article that passes the filter, negation applied. */
function articleMatches(store: EmulatorStore, articles: ArticleIndex, filter: DashboardFilter): Uint8Array {
  const matches = valueMatcher(filter);
  const pass = isNegated(filter) ? 0 : 1;
  const result = new Uint8Array(articles.count);
  if (filter.dimension === 'url') {
    store.articles.forEach((article, a) => (result[a] = matches(article.url) ? pass : 1 - pass));
    return result;
  }
  const { dictionary, idsOf } = articleValues(articles, filter.dimension);
  const hit = Uint8Array.from(dictionary.values, (v) => (matches(v) ? 1 : 0));
  for (let a = 0; a < articles.count; a++) {
    const ids = idsOf(a);
    let found = false;
    for (let k = 0; k < ids.length && !found; k++) found = hit[ids[k]] === 1;
    result[a] = found ? pass : 1 - pass;
  }
  return result;
}
