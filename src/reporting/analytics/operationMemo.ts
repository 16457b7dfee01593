import type { MetricName } from '../../kernel/wire';
import type { DateWindowInput } from '../dashboard/dashboardQueryInput';
import type { TableSpec } from '../tables/tableSpec';

/** What an `analytics` field's selection reads (src/graphql/analytics/selection.ts). */
export interface AnalyticsSelection {
  metrics: MetricName[];
  /** `fetchedAt` needs an answer even when no metric is selected. */
  needsAnswer: boolean;
}

/**
 * Every article of a batch asks the same questions: is this window valid,
 * which table answers it, which metrics does this field select. Built per
 * request (context factory) so a router's batch of 1,000 articles answers
 * them once instead of 1,000 times.
 */
export class AnalyticsMemo {
  private readonly specs = new Map<string, TableSpec>();
  // Keyed by the execution's variables too: a selection's `metric(metric: $m)` depends on them.
  private readonly selections = new WeakMap<object, WeakMap<object, AnalyticsSelection>>();

  /** Only windows that were valid are kept: an invalid one throws each time, so every field reports its error. */
  spec(input: DateWindowInput, resolve: () => TableSpec): TableSpec {
    const key = JSON.stringify(input);
    let spec = this.specs.get(key);
    if (spec === undefined) {
      spec = resolve();
      this.specs.set(key, spec);
    }
    return spec;
  }

  /**
   * `variables` and `field` are the execution's variable values and the
   * field's first node (GraphQL hands every item of a list the same
   * fieldNodes array, so the first node stands for the merged field).
   */
  selection(variables: object, field: object, read: () => AnalyticsSelection): AnalyticsSelection {
    let byField = this.selections.get(variables);
    if (byField === undefined) {
      byField = new WeakMap();
      this.selections.set(variables, byField);
    }
    let selection = byField.get(field);
    if (selection === undefined) {
      selection = read();
      byField.set(field, selection);
    }
    return selection;
  }
}
