/**
 * Composition helpers shared by the federation and frontend tests: our
 * subgraph's SDL exactly as the server loads it, and a supergraph composed
 * from it the way a router's build step (rover / GraphOS) would.
 */
import { composeServices, type CompositionSuccess } from '@apollo/composition';
import { printSchema, type DocumentNode } from 'graphql';
import { loadTypeDefs } from '../../src/graphql/schema';

export const ANALYTICS_SUBGRAPH_NAME = 'analytics';

export type SubgraphDefinition = Parameters<typeof composeServices>[0][number];

/** schema/*.graphql through the server's own loader: exactly the SDL it serves. */
export function loadAnalyticsTypeDefs(): DocumentNode {
  return loadTypeDefs();
}

/** Composes or throws with every composition error, so a failing test says why. */
export function composeSupergraph(subgraphs: SubgraphDefinition[]): CompositionSuccess {
  const result = composeServices(subgraphs);
  if (result.errors) {
    throw new Error(`supergraph composition failed:\n${result.errors.map((e) => `- ${e.message}`).join('\n')}`);
  }
  return result;
}

/**
 * The client-facing (API) schema of a supergraph as SDL: what the router
 * serves through introspection, without join/link machinery or `_entities`.
 */
export function printApiSchema(supergraph: CompositionSuccess): string {
  return printSchema(supergraph.schema.toAPISchema().toGraphQLJSSchema());
}
