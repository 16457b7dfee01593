import type { GraphQLSchema } from 'graphql';
import type { MetricRule } from '../../reporting/reads/callerReads';
import { AccessRules, describeScopes, satisfies } from './accessRules';

/** The schema's enum of metrics, whose values carry @valueRequiresScopes (schema/dashboard.graphql). */
const METRIC_ENUM = 'Metric';

/**
 * What reading each metric needs, read once from the schema's own
 * declarations, for the caller's read path (src/reporting/reads/callerReads.ts):
 * the same rule enforceScopes applies to a field's arguments, applied there to
 * every metric a query or a subscription would ask for, before any table ask.
 */
export function metricRuleOf(schema: GraphQLSchema): MetricRule {
  const rules = new AccessRules(schema);
  return {
    refusal: (metric, scopes) => {
      const requirement = rules.valueRequirement(METRIC_ENUM, metric);
      if (requirement === undefined || satisfies(scopes, requirement)) return undefined;
      return `${requirement.what} needs ${describeScopes(requirement)}`;
    },
  };
}
