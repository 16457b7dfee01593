import type { GraphQLResolveInfo } from 'graphql';
import { parseResolveInfo, type ResolveTree } from 'graphql-parse-resolve-info';
import type { MetricName } from '../../kernel/wire';
import { Metric } from '../../../contract';
import { FIELD_METRICS } from '../../reporting/tables/articleMetrics';
import type { AnalyticsSelection } from '../../reporting/analytics/operationMemo';

const METRIC_NAMES: ReadonlySet<string> = new Set(Object.values(Metric));
const isMetricName = (value: unknown): value is MetricName => typeof value === 'string' && METRIC_NAMES.has(value);

/**
 * The metrics an `analytics` field's selection reads, fragments, aliases,
 * variables and @skip/@include taken into account (graphql-parse-resolve-info
 * applies GraphQL's own field collection). Known before the subfields run, so
 * the whole selection joins the operation's batch at once. Which of them the
 * caller may read is its read path's to say (src/reporting/reads/callerReads.ts).
 */
export function selectedMetrics(info: GraphQLResolveInfo): AnalyticsSelection {
  const parsed = parseResolveInfo(info);
  const fields = isResolveTree(parsed) ? Object.values(parsed.fieldsByTypeName.ArticleAnalytics ?? {}) : [];
  const metrics = new Set<MetricName>();
  let needsAnswer = false;
  for (const field of fields) {
    const metric = field.name === 'metric' ? metricArgument(field) : FIELD_METRICS[field.name];
    if (metric !== undefined) metrics.add(metric);
    if (field.name === 'fetchedAt') needsAnswer = true;
  }
  return { metrics: [...metrics], needsAnswer: needsAnswer || metrics.size > 0 };
}

function isResolveTree(parsed: ReturnType<typeof parseResolveInfo>): parsed is ResolveTree {
  return parsed != null && typeof parsed.name === 'string' && typeof parsed.fieldsByTypeName === 'object';
}

/** Enum arguments arrive as the enum's internal value: the upstream name (contract/names.ts). */
function metricArgument(field: ResolveTree): MetricName | undefined {
  const value = field.args.metric;
  return isMetricName(value) ? value : undefined;
}
