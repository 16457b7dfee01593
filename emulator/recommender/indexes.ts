import type { EmulatorStore } from '../store';
import { DomainTextIndex } from './textIndex';
import { normalizeName } from './tokenize';
import { ViewIndex } from './viewIndex';

/**
 * Everything the recommender derives from one version of the store. Each part
 * is built on first use: a `latest` request never pays for the TF-IDF index,
 * and a domain's text index is only built when that domain is asked about.
 */
export class RecommenderIndexes {
  readonly version: number;
  private viewIndex: ViewIndex | undefined;
  private domainMembers: Map<string, Int32Array> | undefined;
  private features: ArticleFeatures | undefined;
  private readonly textIndexes = new Map<string, DomainTextIndex>();

  constructor(private readonly store: EmulatorStore) {
    this.version = store.version;
  }

  get views(): ViewIndex {
    return (this.viewIndex ??= ViewIndex.build(this.store));
  }

  /** Normalized section and author names per article (see `normalizeName`). */
  get articleFeatures(): ArticleFeatures {
    return (this.features ??= {
      sections: this.store.articles.map((a) => a.sections.map(normalizeName)),
      authors: this.store.articles.map((a) => a.authors.map(normalizeName)),
    });
  }

  /** Indexes of the articles of `domain` (case-insensitive), ascending. */
  articlesOf(domain: string): Int32Array {
    this.domainMembers ??= groupByDomain(this.store);
    return this.domainMembers.get(normalizeDomain(domain)) ?? new Int32Array(0);
  }

  textIndexOf(domain: string): DomainTextIndex {
    const key = normalizeDomain(domain);
    let index = this.textIndexes.get(key);
    if (index === undefined) {
      index = DomainTextIndex.build(this.store.articles, this.articlesOf(key));
      this.textIndexes.set(key, index);
    }
    return index;
  }
}

export interface ArticleFeatures {
  sections: string[][];
  authors: string[][];
}

/**
 * Keyed by store (not module-global data), so two emulators in one process
 * never see each other's indexes; replaced whenever the store's version moves.
 */
const cache = new WeakMap<EmulatorStore, RecommenderIndexes>();

export function indexesFor(store: EmulatorStore): RecommenderIndexes {
  let indexes = cache.get(store);
  if (indexes === undefined || indexes.version !== store.version) {
    indexes = new RecommenderIndexes(store);
    cache.set(store, indexes);
  }
  return indexes;
}

function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase();
}

function groupByDomain(store: EmulatorStore): Map<string, Int32Array> {
  const lists = new Map<string, number[]>();
  store.articles.forEach((article, index) => {
    const key = normalizeDomain(article.domain);
    let list = lists.get(key);
    if (list === undefined) lists.set(key, (list = []));
    list.push(index);
  });
  return new Map(Array.from(lists, ([domain, list]) => [domain, Int32Array.from(list)]));
}
