import type { GraphQLResolveInfo } from 'graphql';
import type { DateWindowInput } from '../../reporting/dashboard/dashboardQueryInput';
import type { Context } from '../../operation/context';
import type { MetricName } from '../../kernel/wire';
import type { ArticleMetricsLoader } from '../../operation/loaders/articleMetrics';
import type { Cell } from '../../reporting/tables/analyticsTables';
import { tableSpec, type TableSpec } from '../../reporting/tables/tableSpec';
import { Metric } from '../../../contract';
import { hintDashboardAnswer } from '../responseCache/cacheHints';
import { rejectInvalid } from '../errors';
import type { ArticleAnalyticsParent } from '../parents/mappers';
import { selectedMetrics } from './selection';
import { DEFAULT_ANALYTICS_WINDOW, validateWindow } from '../../reporting/dashboard/analyticsWindow';

/** Asked for when the selection reads `fetchedAt` or `from`/`to` and no metric: some answer must say when and over what. */
const PROBE_METRIC = Metric.PAGE_VIEWS_TOTAL;

/** Article tables are ranked by page views: the most read articles are the ones most asked about. */
const ARTICLE_TABLE_RANK = Metric.PAGE_VIEWS_TOTAL;

/**
 * `Article.analytics`: validates the window and loads every metric the
 * selection reads before returning, so every article's keys reach the same
 * batch. A metric's own error (e.g. outside the plan) stays at its field;
 * when no metric has a number, the whole field fails once.
 */
export async function resolveArticleAnalytics(
  url: string,
  window: DateWindowInput | null | undefined,
  context: Pick<Context, 'articleMetrics' | 'analyticsMemo' | 'cacheTtls' | 'now' | 'recordAsk' | 'reads'>,
  info: GraphQLResolveInfo,
): Promise<ArticleAnalyticsParent> {
  const input = window ?? DEFAULT_ANALYTICS_WINDOW;
  const spec = context.analyticsMemo.spec(input, () => {
    rejectInvalid(validateWindow(input, 'window'));
    return tableSpec(input, {}, ARTICLE_TABLE_RANK);
  });
  const selection = context.analyticsMemo.selection(info.variableValues, info.fieldNodes[0], () => selectedMetrics(info));
  // The caller's read path: FORBIDDEN for an article outside its sites; a metric outside its scopes asks for
  // nothing (its field fails FORBIDDEN on its own, the fields beside it answer).
  const readable = context.reads.articleMetrics([url], selection.metrics, 'drop');
  const metrics = readable.length === 0 ? [PROBE_METRIC] : readable;
  const values = await loadMetrics(context.articleMetrics, spec, url, metrics);
  const cells = [...values.values()].filter((value): value is Cell => !(value instanceof Error));
  if (cells.length === 0) {
    context.recordAsk('refused');
    throw [...values.values()][0];
  }
  const oldest = cells.reduce((a, b) => (b.fetchedAt < a.fetchedAt ? b : a));
  context.recordAsk(oldest.outcome);
  // The caller's window, not the table's: "the last 7 days" keeps moving, so it gets the short TTL; past it (stale), 0.
  hintDashboardAnswer(info, context.cacheTtls, input, oldest.fetchedAt, context.now, context.reads.cacheScope);
  return { url, spec, window: { from: oldest.from, to: oldest.to }, fetchedAt: oldest.fetchedAt, values };
}

async function loadMetrics(
  loader: ArticleMetricsLoader,
  spec: TableSpec,
  url: string,
  metrics: readonly MetricName[],
): Promise<Map<MetricName, Cell | Error>> {
  // A key's Error rejects its load (DataLoader's contract): settled, so each metric keeps its own outcome.
  const settled = await Promise.allSettled(metrics.map((metric) => loader.load({ spec, url, metric })));
  return new Map(
    metrics.map((metric, index) => {
      const outcome = settled[index];
      const value = outcome.status === 'fulfilled' ? outcome.value : asError(outcome.reason);
      return [metric, value];
    }),
  );
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`analytics failed: ${String(reason)}`);
}

/** A metric of the parent: loaded already, unless the selection reading missed it (then it is loaded now). Its error is its field's. */
export async function analyticsValue(parent: ArticleAnalyticsParent, metric: MetricName, loader: ArticleMetricsLoader): Promise<number> {
  const value = parent.values.get(metric) ?? (await loader.load({ spec: parent.spec, url: parent.url, metric }));
  if (value instanceof Error) throw value;
  return value.value;
}
