import type { GraphQLResolveInfo } from 'graphql';
import type { DateWindowInput, SubscriptionTopArticlesArgs } from '../__generated__/resolvers-types';
import type { Cell } from '../../reporting/tables/analyticsTables';
import { tableSpec } from '../../reporting/tables/tableSpec';
import { toTopArticlesRequest, validateTopArticles } from '../../reporting/analytics/topArticles';
import type { CallerReads } from '../../reporting/reads/callerReads';
import { selectedMetrics } from '../analytics/selection';
import { rankingParents } from '../analytics/topArticles';
import { DEFAULT_ANALYTICS_WINDOW, validateWindow } from '../../reporting/dashboard/analyticsWindow';
import type { MetricName } from '../../kernel/wire';
import { Metric } from '../../../contract';
import { rejectInvalid, type InvalidArgument } from '../errors';
import type { ArticleAnalyticsParent, ArticleRankingParent } from '../parents/mappers';
import type { FeedSource } from '../../reporting/live/liveFeed';

/** Article tables are ranked by page views, as `Article.analytics` reads them: the same table serves both. */
const ARTICLE_TABLE_RANK = Metric.PAGE_VIEWS_TOTAL;
/** Read when the selection reads no metric (only `fetchedAt`, `from`, `to`): some answer must say when. */
const PROBE_METRIC = Metric.PAGE_VIEWS_TOTAL;

/**
 * `Subscription.topArticles`: the ranking `Query.topArticles` reads,
 * validated the same way, through the same read path of the caller: a metric
 * outside its scopes or a domain outside its sites is FORBIDDEN now, before
 * any table ask; else the table of the caller's domain, or the shared one with
 * only its sites' rows. What the caller sees is the feed's key: callers of
 * different sites never share one.
 */
export function topArticlesSource(args: Partial<SubscriptionTopArticlesArgs>, reads: CallerReads): FeedSource<ArticleRankingParent[]> {
  const request = toTopArticlesRequest(args);
  rejectInvalid(validateTopArticles(request));
  const ranking = reads.ranking(request);
  return {
    key: JSON.stringify(['topArticles', ranking.key]),
    table: ranking.table,
    read: async (deadline, signal) => rankingParents(await ranking.read(deadline, signal)),
    same: (a, b) => a.length === b.length && a.every((row, index) => row.url === b[index].url && row.value === b[index].value),
  };
}

/** One article's numbers, or the error its item answers when the tables had none of them. */
type ArticleItem = ArticleAnalyticsParent | Error;

/**
 * `Subscription.articleAnalytics`: the numbers `Article.analytics` reads,
 * from the same table, through the same read path of the caller, for every
 * metric the subscription's selection reads. An article on a site the caller
 * may not read, or a metric outside its scopes (e.g. `revenue` without
 * revenue:read), is FORBIDDEN now, before any table ask: a feed asks only for
 * numbers each of its callers may read.
 */
export function articleAnalyticsSource(
  args: { urls: readonly string[]; window?: DateWindowInput | null },
  reads: CallerReads,
  maxRows: number,
  info: GraphQLResolveInfo,
): FeedSource<ArticleItem[]> {
  const window = args.window ?? DEFAULT_ANALYTICS_WINDOW;
  rejectInvalid([...urlProblems(args.urls, maxRows), ...validateWindow(window, 'window')]);
  const spec = tableSpec(window, {}, ARTICLE_TABLE_RANK);
  const selected = reads.articleMetrics(args.urls, selectedMetrics(info).metrics, 'refuse');
  const metrics = selected.length === 0 ? [PROBE_METRIC] : [...selected].sort();
  const urls = [...args.urls];
  return {
    key: JSON.stringify(['articleAnalytics', spec.key, metrics, urls]),
    table: spec.key,
    read: async (deadline, signal) => {
      const cells = await reads.articles(spec, [...new Set(urls)], metrics, deadline, signal);
      return urls.map((url) => articleItem(url, spec, cells.get(url) ?? new Map()));
    },
    same: (a, b) => a.length === b.length && a.every((item, index) => sameItem(item, b[index], metrics)),
  };
}

function urlProblems(urls: readonly string[], maxRows: number): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  if (urls.length === 0 || urls.length > maxRows) {
    problems.push({ path: 'urls', message: `must hold 1 to ${maxRows} urls (REPORTING_MAX_ROWS), got ${urls.length}` });
  }
  urls.forEach((url, index) => {
    if (url.trim() === '') problems.push({ path: `urls[${index}]`, message: 'must not be empty' });
  });
  return problems;
}

function articleItem(url: string, spec: ArticleAnalyticsParent['spec'], values: Map<MetricName, Cell | Error>): ArticleItem {
  const cells = [...values.values()].filter((value): value is Cell => !(value instanceof Error));
  if (cells.length === 0) {
    const first = [...values.values()][0];
    return first instanceof Error ? first : new Error(`analytics: no numbers for ${url}`);
  }
  // The oldest number speaks for the item, as in `Article.analytics`: its window and age are the ones to trust least.
  const oldest = cells.reduce((a, b) => (b.fetchedAt < a.fetchedAt ? b : a));
  return { url, spec, window: { from: oldest.from, to: oldest.to }, fetchedAt: oldest.fetchedAt, values };
}

function sameItem(a: ArticleItem, b: ArticleItem, metrics: readonly MetricName[]): boolean {
  // Still no numbers is no change, whatever the error says (its message may count down a Retry-After).
  if (a instanceof Error || b instanceof Error) return a instanceof Error && b instanceof Error;
  return metrics.every((metric) => numberOf(a, metric) === numberOf(b, metric));
}

function numberOf(item: ArticleAnalyticsParent, metric: MetricName): number | string | undefined {
  const value = item.values.get(metric);
  return value instanceof Error ? value.message : value?.value;
}
