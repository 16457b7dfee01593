import type { DashboardAnswer } from '../../kernel/fetched';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../kernel/wire';
import { dashboardBodyKey } from '../../upstream/keys';

/** Any fixed metric: without `groupBy` the order names nothing the answer depends on, so it is no part of a kind. */
const UNGROUPED_ORDER = { metric: 'pageViewsTotal', sort: 'DESC' } as const;

/**
 * Everything of a body but its metrics: asks of one kind can share one query.
 * Without `groupBy` the answer has one row a metric, so `order` (which must
 * name one of the ask's metrics, and defaults to the first) changes nothing
 * and is no part of the kind either.
 */
export function kindOf(body: DashboardQueryBody): string {
  return dashboardBodyKey(body.groupBy.length === 0 ? { ...body, metrics: [], order: UNGROUPED_ORDER } : { ...body, metrics: [] });
}

/**
 * The one body for asks of one kind: the union of their metrics, sorted, so
 * one set of metrics is one cache key. A lone body (or several identical
 * ones) goes as it came: its metrics in its order are what a
 * metric_unavailable error names.
 */
export function mergedBody(bodies: readonly DashboardQueryBody[]): DashboardQueryBody {
  const first = bodies[0];
  if (first === undefined) throw new Error('mergedBody: no body to merge');
  const distinct = new Set(bodies.map(dashboardBodyKey));
  if (distinct.size === 1) return first;
  const metrics = [...new Set(bodies.flatMap((body) => body.metrics))].sort();
  // Grouped: the kind holds one order, a metric of every ask. Ungrouped: any metric of the union, always the same one.
  return { ...first, metrics, order: first.groupBy.length === 0 ? { metric: metrics[0], sort: 'DESC' } : first.order };
}

/** Whether a body's answer holds every metric another body of its kind asks for. */
export function carriesMetrics(body: DashboardQueryBody, metrics: readonly MetricName[]): boolean {
  return metrics.every((metric) => body.metrics.includes(metric));
}

/** The ask's own metrics' results, in its order (the protected endpoint has checked one result per metric). */
export function sliceAnswer(answer: DashboardAnswer, metrics: readonly MetricName[]): DashboardAnswer | Error {
  const byMetric = new Map(answer.value.map((result) => [result.metric, result]));
  const value: DashboardMetricResultWire[] = [];
  for (const metric of metrics) {
    const result = byMetric.get(metric);
    if (result === undefined) return new Error(`dashboard answer lacks metric ${metric}`);
    value.push(result);
  }
  return { ...answer, value };
}
