import type { Article } from '../store';
import { DEMO_DOMAINS, type Bucket } from './domains';
import { diurnalAccepts } from './diurnal';
import { Random, WeightedChoice } from './random';
import { FIRST_NAMES, LAST_NAMES, VOCABULARY, type Section } from './vocabulary';

const DAY_MS = 86_400_000;
/** Articles are published over this span before now... */
const PUBLISH_SPAN_MS = 45 * DAY_MS;
/** ...and the newest is at least this old, so "latest" has something to show right away. */
const NEWEST_AGE_MS = 10 * 60_000;

export interface GeneratedArticles {
  /** Sorted by publishTime (oldest first); these become the store's article indexes. */
  articles: Article[];
  /** The (site, first section) bucket of each article, by index. */
  bucketOf: Int32Array;
}

/**
 * `count` articles (`now` on a whole second) spread over the sites by their shares, each site's sections
 * by their weights, publish times over the last 45 days with a newsroom's daily
 * rhythm. Every (site, section) pair gets at least one article, so a small
 * scale still shows every section.
 */
export function generateArticles(random: Random, count: number, buckets: readonly Bucket[], now: number): GeneratedArticles {
  const drafts: { article: Article; bucket: number }[] = [];
  const perSite = articlesPerSite(count, buckets);
  let serial = 0;
  DEMO_DOMAINS.forEach((site, domainIndex) => {
    const siteBuckets = buckets.flatMap((b, index) => (b.domainIndex === domainIndex ? [index] : []));
    const bucketChoice = new WeightedChoice(siteBuckets.map((index) => buckets[index].weight));
    const authorPools = new Map(siteBuckets.map((index) => [index, authorPool(random, buckets[index])]));
    for (let i = 0; i < perSite[domainIndex]; i++) {
      // The first few cover every section of the site once.
      const bucket = i < siteBuckets.length ? siteBuckets[i] : siteBuckets[bucketChoice.draw(random)];
      const section = buckets[bucket].section;
      const sections = pickSections(random, section, site.sections);
      const authors = pickAuthors(random, authorPools.get(bucket) ?? []);
      const publishTime = drawPublishTime(random, now);
      serial++;
      const title = composeTitle(random, section);
      const slug = `${slugify(title)}-${serial.toString(36)}`;
      drafts.push({
        bucket,
        article: {
          url: `https://${site.domain}/${section.toLowerCase()}/${datePath(publishTime)}/${slug}`,
          domain: site.domain,
          title,
          img: `https://img.${site.domain}/${slug}.jpg`,
          authors,
          sections,
          publishTime,
        },
      });
    }
  });
  drafts.sort((a, b) => a.article.publishTime - b.article.publishTime || (a.article.url < b.article.url ? -1 : 1));
  return { articles: drafts.map((d) => d.article), bucketOf: Int32Array.from(drafts, (d) => d.bucket) };
}

/** Site shares of `count`, rounded so they sum to `count`, but never fewer than the site's sections. */
function articlesPerSite(count: number, buckets: readonly Bucket[]): number[] {
  let cumulative = 0;
  let assigned = 0;
  return DEMO_DOMAINS.map((site, domainIndex) => {
    cumulative += site.articleShare * count;
    const share = Math.round(cumulative) - assigned;
    assigned += share;
    const sectionCount = buckets.filter((b) => b.domainIndex === domainIndex).length;
    return Math.max(sectionCount, share);
  });
}

/** The site's desk for a beat: bigger for the sections the site is about. */
function authorPool(random: Random, bucket: Bucket): string[] {
  const size = 3 + Math.round(bucket.weight * 7);
  const pool = new Set<string>();
  while (pool.size < size) pool.add(`${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`);
  return [...pool];
}

function pickAuthors(random: Random, pool: readonly string[]): string[] {
  const roll = random.next();
  const wanted = Math.min(pool.length, roll < 0.72 ? 1 : roll < 0.95 ? 2 : 3);
  const authors: string[] = [];
  while (authors.length < wanted) {
    const name = random.pick(pool);
    if (!authors.includes(name)) authors.push(name);
  }
  return authors;
}

/** Most articles have one section; some are cross-filed under a related one the site has. */
function pickSections(random: Random, first: Section, siteSections: Readonly<Partial<Record<Section, number>>>): string[] {
  if (!random.chance(0.22)) return [first];
  const candidates = VOCABULARY[first].related.filter((s) => siteSections[s] !== undefined);
  return candidates.length === 0 ? [first] : [first, random.pick(candidates)];
}

const TOPIC_CHOICE = new WeightedChoice(Array.from({ length: 10 }, (_, k) => 1 / (k + 1)));

/**
 * A headline from the section's vocabulary. Topics are Zipf-distributed, so a
 * section has a few running stories whose articles share most of their words.
 */
function composeTitle(random: Random, section: Section): string {
  const words = VOCABULARY[section];
  const actor = random.pick(words.actors);
  const verb = random.pick(words.verbs);
  const topic = words.topics[TOPIC_CHOICE.draw(random) % words.topics.length];
  const context = random.pick(words.contexts);
  const roll = random.next();
  let title: string;
  if (roll < 0.45) title = `${actor} ${verb} ${topic}`;
  else if (roll < 0.82) title = `${actor} ${verb} ${topic} ${context}`;
  else if (roll < 0.94) title = `${capitalize(topic)} ${context}`;
  else title = `${random.chance(0.5) ? 'Live' : 'Analysis'}: ${topic} ${context}`;
  return capitalize(title);
}

function drawPublishTime(random: Random, now: number): number {
  const newest = now - NEWEST_AGE_MS;
  for (;;) {
    const time = newest - Math.floor((random.next() * (PUBLISH_SPAN_MS - NEWEST_AGE_MS)) / 1000) * 1000;
    if (diurnalAccepts(random, time)) return time;
  }
}

function datePath(time: number): string {
  return new Date(time).toISOString().slice(0, 10).replaceAll('-', '/');
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
