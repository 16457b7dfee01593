import type { Article } from '../store';
import { authorToken, sectionToken, titleWords, urlPathTerms } from './tokenize';

/**
 * How much one occurrence of a term counts, by field. Sharing a section is
 * the strongest hint of related content, a shared author the next; title
 * words count once each (several shared words add up).
 */
const FIELD_WEIGHTS = { title: 1, section: 2, author: 1.5 } as const;

/** Field-weighted term frequencies of a document. */
export type TermCounts = Map<string, number>;

export function articleTerms(article: Article): TermCounts {
  const terms: TermCounts = new Map();
  for (const word of titleWords(article.title)) addTerm(terms, word, FIELD_WEIGHTS.title);
  for (const section of article.sections) addTerm(terms, sectionToken(section), FIELD_WEIGHTS.section);
  for (const author of article.authors) addTerm(terms, authorToken(author), FIELD_WEIGHTS.author);
  return terms;
}

/**
 * The query document for a canonical URL the store does not know: its path
 * words as title words, and its path segments as candidate section names
 * (names that are not sections of the domain simply match nothing).
 */
export function urlTerms(url: string): TermCounts {
  const { words, sections } = urlPathTerms(url);
  const terms: TermCounts = new Map();
  for (const word of words) addTerm(terms, word, FIELD_WEIGHTS.title);
  for (const section of sections) addTerm(terms, sectionToken(section), FIELD_WEIGHTS.section);
  return terms;
}

function addTerm(terms: TermCounts, term: string, weight: number): void {
  terms.set(term, (terms.get(term) ?? 0) + weight);
}

interface Postings {
  articles: number[];
  /** The term's weight in each article's unit-length TF-IDF vector. */
  weights: number[];
}

/**
 * TF-IDF vectors of one domain's articles, stored as an inverted index so a
 * query only touches the articles that share a term with it.
 * idf(t) = ln((1 + N) / (1 + df(t))) + 1 (smoothed: a term in every document
 * still counts a little, and no division by zero).
 */
export class DomainTextIndex {
  private constructor(
    private readonly idf: Map<string, number>,
    private readonly postings: Map<string, Postings>,
  ) {}

  static build(articles: readonly Article[], members: Int32Array): DomainTextIndex {
    const documents = Array.from(members, (index) => articleTerms(articles[index]));
    const documentFrequency = new Map<string, number>();
    for (const terms of documents) {
      for (const term of terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    const idf = new Map<string, number>();
    for (const [term, df] of documentFrequency) idf.set(term, Math.log((1 + members.length) / (1 + df)) + 1);

    const postings = new Map<string, Postings>();
    documents.forEach((terms, i) => {
      const vector = weightedUnitVector(terms, idf);
      for (const [term, weight] of vector) {
        let list = postings.get(term);
        if (list === undefined) postings.set(term, (list = { articles: [], weights: [] }));
        list.articles.push(members[i]);
        list.weights.push(weight);
      }
    });
    return new DomainTextIndex(idf, postings);
  }

  /**
   * Adds the cosine similarity between `query` and every article of the
   * domain into `scores` (indexed by article; articles sharing no term stay 0).
   */
  addSimilarities(query: TermCounts, scores: Float64Array): void {
    for (const [term, weight] of weightedUnitVector(query, this.idf)) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      for (let i = 0; i < list.articles.length; i++) scores[list.articles[i]] += weight * list.weights[i];
    }
  }
}

/** tf·idf per known term, scaled to unit length; terms the domain never uses are dropped. */
function weightedUnitVector(terms: TermCounts, idf: Map<string, number>): Map<string, number> {
  const vector = new Map<string, number>();
  let squares = 0;
  for (const [term, tf] of terms) {
    const termIdf = idf.get(term);
    if (termIdf === undefined) continue;
    const weight = tf * termIdf;
    vector.set(term, weight);
    squares += weight * weight;
  }
  const norm = Math.sqrt(squares);
  if (norm > 0) for (const [term, weight] of vector) vector.set(term, weight / norm);
  return vector;
}
