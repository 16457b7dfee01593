import { ARTICLE_DIMENSION_NAMES, TRAFFIC_DIMENSION_NAMES, type ArticleDimensionName, type TrafficDimensionName } from '../../contract';

/**
 * The emulator's data model. Everything the engines read lives in one
 * EmulatorStore; the engines never mutate it, the HTTP routes and the data
 * generator do, through its methods (which bump `version`, so engines can cache
 * derived indexes keyed by it).
 */

/** Traffic dimensions are per page view and dictionary-encoded in the table; the names are the contract's. */
export const TRAFFIC_DIMENSIONS = TRAFFIC_DIMENSION_NAMES;
export type TrafficDimension = TrafficDimensionName;

/** Article dimensions come from the article a page view is of. */
export const ARTICLE_DIMENSIONS = ARTICLE_DIMENSION_NAMES;
export type ArticleDimension = ArticleDimensionName;

export type Dimension = TrafficDimension | ArticleDimension;

export interface Article {
  url: string;
  domain: string;
  title: string;
  img: string;
  authors: string[];
  sections: string[];
  /** Epoch milliseconds, UTC. */
  publishTime: number;
}

/** One page view, fully enriched (see emulator/data/enrich.ts for ingested rows). */
export interface PageViewRow {
  /** Index into EmulatorStore.articles. */
  article: number;
  clientId: string;
  /** Epoch milliseconds, UTC. */
  time: number;
  durationSeconds: number;
  /** Percentage scrolled, 0..100. */
  scroll: number;
  adsImpressions: number;
  /** Revenue in millionths of the currency unit, so sums are exact integers. */
  revenueMicros: number;
  /** The reader's RFV (recency, frequency, volume) score at the time of this view. */
  rfv: number;
  traffic: Record<TrafficDimension, string>;
}

export type RankingProfile = 'mostRead' | 'latest' | 'popular' | 'trendy' | 'similar' | 'personalized' | 'balanced';

export const RANKING_PROFILES: readonly RankingProfile[] = [
  'mostRead',
  'latest',
  'popular',
  'trendy',
  'similar',
  'personalized',
  'balanced',
];

export interface Experience {
  /** `IL_` + 22 url-safe characters. */
  id: string;
  name: string;
  domain: string;
  rankingProfile: RankingProfile;
  /** Number of recommendations returned, 1..50. */
  size: number;
  timeWindowDays: number;
  sections: { include?: string[]; exclude?: string[] };
}

export type Role = 'api' | 'admin' | 'editor';

export interface Organization {
  id: number;
  name: string;
  domain: string;
  /** When true, admins cannot use the API and API users need an API password. */
  ssoEnforced: boolean;
}

export interface User {
  id: number;
  name: string;
  surname: string;
  email: string;
  /** scrypt hash of the web password (`scrypt$<salt b64>$<hash b64>`); null when SSO-only. */
  passwordHash: string | null;
  /** scrypt hash of the separate API password required when SSO is enforced. */
  apiPasswordHash: string | null;
  roles: Role[];
  organization: Organization;
  /** Epoch milliseconds. */
  registered: number;
  updatedAt: number;
}
