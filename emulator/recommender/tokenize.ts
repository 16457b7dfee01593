/**
 * Turning article metadata and URLs into the tokens the similarity index is
 * built from. Sections and authors become single prefixed tokens
 * (`section:world news`, `author:jane doe`) so that a multi-word name matches
 * as a whole and never collides with an ordinary title word.
 */

const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between ' +
    'both but by can could did do does doing down during each few for from further had has have having he her ' +
    'here hers herself him himself his how i if in into is it its itself just me more most my myself new no nor ' +
    'not now of off on once only or other our ours ourselves out over own same she should so some such than that ' +
    'the their theirs them themselves then there these they this those through to too under until up very was we ' +
    'were what when where which while who whom why will with would you your yours yourself yourselves says said ' +
    'after amid via vs'
  ).split(' '),
);

/** Path words that say how a page is served, not what it is about. */
const URL_NOISE = new Set(['html', 'htm', 'php', 'aspx', 'asp', 'amp', 'index', 'www', 'story', 'article']);

/**
 * Lowercased words of a title, without stopwords, single characters or pure
 * numbers (the dates in URL paths would otherwise all match each other).
 */
export function titleWords(text: string): string[] {
  const words: string[] = [];
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length > 1 && !STOPWORDS.has(word) && !/^\p{N}+$/u.test(word)) words.push(word);
  }
  return words;
}

export function sectionToken(section: string): string {
  return `section:${normalizeName(section)}`;
}

export function authorToken(author: string): string {
  return `author:${normalizeName(author)}`;
}

/** Case- and spacing-insensitive form of a section or author name. */
export function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

/**
 * Words and section candidates of a URL's path, used as the query document
 * when the canonical URL is not in the store. Each path segment is also
 * offered as a section name (`/world-news/...` → `world news`), since sites
 * commonly put the section there; the index ignores names it does not know.
 */
export function urlPathTerms(url: string): { words: string[]; sections: string[] } {
  const path = safeDecode(new URL(url).pathname);
  const words: string[] = [];
  const sections: string[] = [];
  for (const segment of path.split('/')) {
    words.push(...titleWords(segment).filter((w) => !URL_NOISE.has(w)));
    const name = segment
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .join(' ');
    if (name !== '') sections.push(name);
  }
  return { words, sections };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // A malformed escape is still usable as plain text.
    return path;
  }
}
