import { runDashboardQuery, type DashboardMetricResult, type Metric } from '../../emulator/dashboard';
import { EmulatorStore, type Article, type PageViewRow, type TrafficDimension } from '../../emulator/store';

/**
 * A hand-written store for the dashboard tests: four articles and six page
 * views whose numbers are small enough to add up by hand in each test.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** 2026-11-22 12:34:56 UTC: deliberately not on a bucket boundary. */
export const NOW = Date.UTC(2026, 10, 22, 12, 34, 56);

export const A0 = 'https://news.example/budget-vote';
export const A1 = 'https://news.example/cup-final';
export const A2 = 'https://sport.example/transfer';
export const A3 = 'https://news.example/budget-reactions';

const ARTICLES: Article[] = [
  article(A0, 'news.example', 'Budget vote', ['Politics', 'Economy'], ['Ann', 'Bob'], NOW - 2 * HOUR),
  article(A1, 'news.example', 'Cup final', ['Sport'], ['Bob'], NOW - 3 * DAY),
  article(A2, 'sport.example', 'Transfer news', ['Sport'], ['Cid'], NOW - 40 * DAY),
  article(A3, 'news.example', 'Budget reactions', ['Politics'], ['Ann'], NOW - 30 * MINUTE),
];

function article(url: string, domain: string, title: string, sections: string[], authors: string[], publishTime: number): Article {
  return { url, domain, title, img: `${url}.jpg`, sections, authors, publishTime };
}

const DEFAULT_TRAFFIC: Record<TrafficDimension, string> = {
  source: 'direct',
  sourceInternal: 'none',
  medium: 'none',
  mediumInternal: 'none',
  campaign: 'none',
  campaignInternal: 'none',
  deviceType: 'desktop',
  userType: 'new',
};

export interface ViewSpec {
  article: number;
  client: string;
  time: number;
  duration?: number;
  scroll?: number;
  ads?: number;
  revenueMicros?: number;
  rfv?: number;
  traffic?: Partial<Record<TrafficDimension, string>>;
}

export function view(spec: ViewSpec): PageViewRow {
  return {
    article: spec.article,
    clientId: spec.client,
    time: spec.time,
    durationSeconds: spec.duration ?? 0,
    scroll: spec.scroll ?? 0,
    adsImpressions: spec.ads ?? 0,
    revenueMicros: spec.revenueMicros ?? 0,
    rfv: spec.rfv ?? 0,
    traffic: { ...DEFAULT_TRAFFIC, ...spec.traffic },
  };
}

/** v0..v4 are within the last day, v5 two days back. RFVs are exact in float32. */
export const VIEWS: PageViewRow[] = [
  view({
    article: 0,
    client: 'c1',
    time: NOW - 10 * MINUTE,
    duration: 60,
    scroll: 50,
    ads: 2,
    revenueMicros: 3000,
    rfv: 1.5,
    traffic: { source: 'google', deviceType: 'mobile', userType: 'new' },
  }),
  view({
    article: 0,
    client: 'c2',
    time: NOW - 20 * MINUTE,
    duration: 30,
    scroll: 100,
    ads: 1,
    revenueMicros: 1000,
    rfv: 0.5,
    traffic: { source: 'facebook', deviceType: 'desktop', userType: 'returning' },
  }),
  view({
    article: 1,
    client: 'c1',
    time: NOW - 70 * MINUTE,
    duration: 120,
    scroll: 80,
    ads: 3,
    revenueMicros: 4500,
    rfv: 2,
    traffic: { source: 'google', deviceType: 'mobile', userType: 'returning' },
  }),
  view({
    article: 2,
    client: 'c3',
    time: NOW - 3 * HOUR,
    duration: 0,
    scroll: 0,
    ads: 0,
    revenueMicros: 0,
    rfv: 0.25,
    traffic: { source: 'direct', deviceType: 'tablet', userType: 'subscriber' },
  }),
  view({
    article: 0,
    client: 'c1',
    time: NOW - 5 * HOUR,
    duration: 90,
    scroll: 70,
    ads: 2,
    revenueMicros: 2500,
    rfv: 1.25,
    traffic: { source: 'Google News', deviceType: 'mobile', userType: 'subscriber' },
  }),
  view({
    article: 1,
    client: 'c4',
    time: NOW - 2 * DAY,
    duration: 45,
    scroll: 30,
    ads: 1,
    revenueMicros: 500,
    rfv: 3,
    traffic: { source: 'google', deviceType: 'desktop', userType: 'new' },
  }),
];

export function fixtureStore(views: readonly PageViewRow[] = VIEWS): EmulatorStore {
  const store = new EmulatorStore();
  store.upsertArticles(ARTICLES);
  store.addPageViews(views);
  return store;
}

/** A valid body over the last day; tests override what they exercise. */
export function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    dates: { last: { number: 1, dimension: 'day' } },
    filters: [],
    groupBy: [],
    metrics: ['pageViewsTotal'],
    order: { metric: 'pageViewsTotal', sort: 'DESC' },
    ...overrides,
  };
}

/** `metrics: [metric]` ordered by it. */
export function only(metric: Metric, sort: 'ASC' | 'DESC' = 'DESC'): Record<string, unknown> {
  return { metrics: [metric], order: { metric, sort } };
}

/** Runs a query that must succeed. */
export function query(store: EmulatorStore, overrides: Record<string, unknown> = {}, now = NOW): DashboardMetricResult[] {
  const outcome = runDashboardQuery(store, body(overrides), now);
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.status} ${JSON.stringify(outcome.body)}`);
  return outcome.value;
}

/** The result object of one metric. */
export function resultOf(results: DashboardMetricResult[], metric: Metric): DashboardMetricResult {
  const found = results.find((r) => r.metric === metric);
  if (!found) throw new Error(`no result for ${metric}`);
  return found;
}

/** Row totals by their items' values joined with '|', e.g. 'Politics|Ann'. */
export function rowTotals(result: DashboardMetricResult): Record<string, number> {
  return Object.fromEntries(result.actualData.values.map((row) => [row.items.map((i) => i.value).join('|'), row.total]));
}
