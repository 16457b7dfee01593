import type { GraphQLResolveInfo } from 'graphql';
import type { DateWindowInput } from '../../graphql/__generated__/resolvers-types';
import type { Context } from '../../operation/context';
import type { Fetched } from '../../upstream/datasources/fetched';
import type { MetricName } from '../../upstream/datasources/wire';
import type { ArticleMetricsLoader } from '../../operation/loaders/articleMetrics';
import { Metric, TimeUnit } from '../../graphql/enums';
import { hintDashboardAnswer } from '../../graphql/resolvers/cacheHints';
import { rejectInvalid } from '../../graphql/errors';
import type { ArticleAnalyticsParent } from '../../graphql/resolvers/mappers';
import { selectedMetrics } from './selection';
import { resolveWindow, validateWindow, type ResolvedWindow } from './window';

/** The schema's default, also used for an explicit `window: null`. */
const DEFAULT_ANALYTICS_WINDOW: DateWindowInput = { last: { number: 7, unit: TimeUnit.DAY } };

/** Asked for when the selection reads `fetchedAt` and no metric: some answer must say when it was fetched. */
const PROBE_METRIC = Metric.PAGE_VIEWS_TOTAL;

/**
 * `Article.analytics`: validates the window, pins it to the operation's
 * instant and loads every metric the selection reads before returning, so a
 * failed query nulls this field once (one error) instead of failing each
 * non-null subfield, and every article's keys reach the same batch.
 */
export async function resolveArticleAnalytics(
  url: string,
  window: DateWindowInput | null | undefined,
  context: Pick<Context, 'articleMetrics' | 'operationInstant' | 'analyticsMemo' | 'cacheTtls' | 'now'>,
  info: GraphQLResolveInfo,
): Promise<ArticleAnalyticsParent> {
  const input = window ?? DEFAULT_ANALYTICS_WINDOW;
  const resolved = context.analyticsMemo.window(input, () => {
    rejectInvalid(validateWindow(input, 'window'));
    return resolveWindow(input, context.operationInstant);
  });
  const selection = context.analyticsMemo.selection(info, () => selectedMetrics(info));
  const metrics = selection.metrics.length === 0 && selection.needsAnswer ? [PROBE_METRIC] : selection.metrics;
  const values = await loadMetrics(context.articleMetrics, url, resolved, metrics);
  // The caller's window, not the pinned one: "the last 7 days" keeps moving, so it gets the short TTL.
  hintDashboardAnswer(info, context.cacheTtls, input, oldestFetchedAt(values) ?? context.now(), context.now);
  return { url, window: resolved, values };
}

function oldestFetchedAt(values: ReadonlyMap<MetricName, Fetched<number>>): number | undefined {
  const fetched = [...values.values()].map((value) => value.fetchedAt);
  return fetched.length === 0 ? undefined : Math.min(...fetched);
}

async function loadMetrics(
  loader: ArticleMetricsLoader,
  url: string,
  window: ResolvedWindow,
  metrics: readonly MetricName[],
): Promise<Map<MetricName, Fetched<number>>> {
  const values = await Promise.all(metrics.map((metric) => loader.load({ window, url, metric })));
  return new Map(metrics.map((metric, index) => [metric, values[index]]));
}

/** A metric of the parent: loaded already, unless the selection reading missed it (then it is loaded now). */
export async function analyticsValue(
  parent: ArticleAnalyticsParent,
  metric: MetricName,
  loader: ArticleMetricsLoader,
): Promise<Fetched<number>> {
  return parent.values.get(metric) ?? loader.load({ window: parent.window, url: parent.url, metric });
}

/** The oldest of the answers the numbers came from: the most honest age for the whole object. */
export async function analyticsFetchedAt(parent: ArticleAnalyticsParent, loader: ArticleMetricsLoader): Promise<number> {
  return oldestFetchedAt(parent.values) ?? (await analyticsValue(parent, PROBE_METRIC, loader)).fetchedAt;
}
