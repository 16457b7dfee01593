import type { EmulatorStore } from '../store';
import type { ArticleFeatures } from './indexes';

/** A view this many days old counts half as much towards a reader's affinity as one from now. */
const AFFINITY_HALF_LIFE_DAYS = 14;

const DAY_MS = 86_400_000;

/** What a client's page views say about them. */
export interface ReadingHistory {
  /** Every article the client has viewed, at any time: never recommended again. */
  read: Set<number>;
  /** Decayed share of the client's reading per normalized section name; sums to 1 when non-empty. */
  sectionAffinity: Map<string, number>;
  /** The same for authors. */
  authorAffinity: Map<string, number>;
}

const EMPTY_HISTORY: ReadingHistory = { read: new Set(), sectionAffinity: new Map(), authorAffinity: new Map() };

/**
 * Derived per request from the client's own rows (a few dozen at most for a
 * typical reader), so it is always current and needs no index of its own.
 * An unknown or absent client has an empty history: nothing excluded, no
 * affinity.
 */
export function readingHistory(store: EmulatorStore, features: ArticleFeatures, clientId: string | undefined, now: number): ReadingHistory {
  const client = clientId === undefined ? undefined : store.clients.lookup(clientId);
  const rows = client === undefined ? undefined : store.clientRows[client];
  if (rows === undefined) return EMPTY_HISTORY;

  const articleOf = store.views.article.data;
  const timeOf = store.views.time.data;
  const read = new Set<number>();
  const sectionAffinity = new Map<string, number>();
  const authorAffinity = new Map<string, number>();
  for (const row of rows) {
    const article = articleOf[row];
    read.add(article);
    const age = now - timeOf[row];
    // A view stamped after `now` has not happened yet as far as taste goes.
    if (age < 0) continue;
    const weight = Math.pow(0.5, age / (AFFINITY_HALF_LIFE_DAYS * DAY_MS));
    for (const section of features.sections[article]) addTo(sectionAffinity, section, weight);
    for (const author of features.authors[article]) addTo(authorAffinity, author, weight);
  }
  return {
    read,
    sectionAffinity: normalizeToShares(sectionAffinity),
    authorAffinity: normalizeToShares(authorAffinity),
  };
}

function addTo(map: Map<string, number>, key: string, amount: number): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}

function normalizeToShares(weights: Map<string, number>): Map<string, number> {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  if (total > 0) for (const [key, weight] of weights) weights.set(key, weight / total);
  return weights;
}
