/**
 * Our @cacheControl reaches the supergraph (a @link'ed spec plus
 * @composeDirective), so a gateway that reads it (Hive Gateway's response
 * cache) sees which answers are PRIVATE; before, composition dropped the
 * directive and kept only its enum (an UNUSED_ENUM_TYPE hint).
 * hiveGateway.test.ts shows the gateway acting on it.
 */
import { buildSchema, isObjectType, parse, print, type ConstDirectiveNode, type GraphQLSchema } from 'graphql';
import { CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS } from '../support/federationCms';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';

const composed = composeSupergraph([
  { name: ANALYTICS_SUBGRAPH_NAME, url: 'http://analytics.invalid/graphql', typeDefs: loadAnalyticsTypeDefs() },
  { name: CMS_SUBGRAPH_NAME, url: 'http://cms.invalid/graphql', typeDefs: parse(CMS_TYPE_DEFS) },
]);
const supergraph: GraphQLSchema = buildSchema(composed.supergraphSdl);

function cacheControl(directives: readonly ConstDirectiveNode[] | undefined): string | undefined {
  const found = directives?.find((d) => d.name.value === 'cacheControl');
  return found && print(found);
}

function fieldHint(typeName: string, fieldName: string): string | undefined {
  const type = supergraph.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  return cacheControl(type.getFields()[fieldName]?.astNode?.directives);
}

describe('cache hints in the composed supergraph', () => {
  it('links the cache-control spec and defines the directive', () => {
    expect(composed.supergraphSdl).toMatch(
      /@link\(url: "https:\/\/specs\.apollo\.dev\/cacheControl\/v0\.1", import: \["@cacheControl"\]\)/,
    );
    expect(supergraph.getDirective('cacheControl')?.args.map((a) => a.name)).toEqual(['maxAge', 'scope', 'inheritMaxAge']);
    expect(composed.hints.map((h) => h.definition.code)).not.toContain('UNUSED_ENUM_TYPE');
  });

  it('marks every field that may be personalized PRIVATE, and not the shared Reader type (sharedEntityCacheHints.test.ts)', () => {
    expect(cacheControl(supergraph.getType('Reader')?.astNode?.directives)).toBeUndefined();
    expect(fieldHint('Reader', 'recommendations')).toBe('@cacheControl(maxAge: 0, scope: PRIVATE)');
    // Personalized only with a clientId; a gateway reading the schema cannot tell, the subgraph's cache-control header can.
    expect(fieldHint('Query', 'recommendations')).toBe('@cacheControl(maxAge: 0, scope: PRIVATE)');
    expect(fieldHint('Article', 'related')).toBe('@cacheControl(maxAge: 0, scope: PRIVATE)');
  });

  it('leaves the public hints public: the dashboard (scope by default PUBLIC); none on the shared Article type', () => {
    expect(fieldHint('Query', 'dashboard')).toBe('@cacheControl(maxAge: 0)');
    expect(cacheControl(supergraph.getType('Article')?.astNode?.directives)).toBeUndefined();
  });
});
