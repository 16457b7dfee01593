import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { DateWindowInput } from '../../graphql/__generated__/resolvers-types';
import type { TableSpec } from '../tables/tableSpec';
import type { AnalyticsSelection } from './selection';

/**
 * Every article of a batch asks the same questions: is this window valid,
 * which table answers it, which metrics does this field select. Built per
 * request (context factory) so a router's batch of 1,000 articles answers
 * them once instead of 1,000 times.
 */
export class AnalyticsMemo {
  private readonly specs = new Map<string, TableSpec>();
  // Keyed by the execution's variables too: a selection's `metric(metric: $m)` depends on them.
  private readonly selections = new WeakMap<GraphQLResolveInfo['variableValues'], WeakMap<FieldNode, AnalyticsSelection>>();

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

  selection(info: GraphQLResolveInfo, read: () => AnalyticsSelection): AnalyticsSelection {
    let byField = this.selections.get(info.variableValues);
    if (byField === undefined) {
      byField = new WeakMap();
      this.selections.set(info.variableValues, byField);
    }
    // The first node stands for the merged field: GraphQL hands every item of a list the same fieldNodes array.
    const node = info.fieldNodes[0];
    let selection = byField.get(node);
    if (selection === undefined) {
      selection = read();
      byField.set(node, selection);
    }
    return selection;
  }
}
