/**
 * Our subgraph composes into a supergraph beside another team's subgraph (a
 * CMS) that owns article content and site users. This is the check a router's
 * build step runs on every schema change.
 */
import { composeServices } from '@apollo/composition';
import {
  buildSchema,
  getNamedType,
  isObjectType,
  parse,
  type ConstDirectiveNode,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS } from '../support/federationCms';
import { ANALYTICS_SUBGRAPH_NAME, loadAnalyticsTypeDefs } from '../support/federationSupergraph';

const ANALYTICS_GRAPH = ANALYTICS_SUBGRAPH_NAME.toUpperCase();
const CMS_GRAPH = CMS_SUBGRAPH_NAME.toUpperCase();

function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type in the supergraph`);
  return type;
}

function graphArguments(directives: readonly ConstDirectiveNode[] | undefined, directiveName: string): string[] {
  return (directives ?? [])
    .filter((d) => d.name.value === directiveName)
    .flatMap((d) => d.arguments ?? [])
    .filter((arg) => arg.name.value === 'graph' && arg.value.kind === 'EnumValue')
    .map((arg) => (arg.value.kind === 'EnumValue' ? arg.value.value : ''));
}

/** The subgraphs a type is declared in (`@join__type`). */
function graphsOfType(schema: GraphQLSchema, name: string): string[] {
  return graphArguments(objectType(schema, name).astNode?.directives, 'join__type').sort();
}

/**
 * The subgraphs that resolve a field: its `@join__field` graphs, or, when it has
 * none, every subgraph that declares the type (composition omits the directive then).
 */
function graphsOfField(schema: GraphQLSchema, typeName: string, fieldName: string): string[] {
  const field = objectType(schema, typeName).getFields()[fieldName];
  if (!field) throw new Error(`${typeName}.${fieldName} is not in the supergraph`);
  const explicit = graphArguments(field.astNode?.directives, 'join__field');
  return explicit.length > 0 ? explicit.sort() : graphsOfType(schema, typeName);
}

describe('supergraph composition with a CMS subgraph', () => {
  const analytics = { name: ANALYTICS_SUBGRAPH_NAME, url: 'http://analytics.invalid/graphql', typeDefs: loadAnalyticsTypeDefs() };
  const cms = { name: CMS_SUBGRAPH_NAME, url: 'http://cms.invalid/graphql', typeDefs: parse(CMS_TYPE_DEFS) };

  const result = composeServices([analytics, cms]);
  // buildSchema over the supergraph SDL keeps the join directives on the AST nodes.
  const supergraph = result.supergraphSdl ? buildSchema(result.supergraphSdl) : undefined;

  function composed(): GraphQLSchema {
    if (!supergraph) throw new Error(`composition failed: ${(result.errors ?? []).map((e) => e.message).join('; ')}`);
    return supergraph;
  }

  it('composes without errors', () => {
    expect((result.errors ?? []).map((e) => e.message)).toEqual([]);
    expect(result.supergraphSdl).toEqual(expect.any(String));
  });

  it('joins Article from both subgraphs on its url key', () => {
    const schema = composed();
    expect(graphsOfType(schema, 'Article')).toEqual([ANALYTICS_GRAPH, CMS_GRAPH].sort());
    expect(graphsOfField(schema, 'Article', 'url')).toEqual([ANALYTICS_GRAPH, CMS_GRAPH].sort());
    expect(graphsOfField(schema, 'Article', 'headline')).toEqual([CMS_GRAPH]);
    expect(graphsOfField(schema, 'Article', 'wordCount')).toEqual([CMS_GRAPH]);
    expect(graphsOfField(schema, 'Article', 'related')).toEqual([ANALYTICS_GRAPH]);
  });

  it('joins Reader from the CMS user type to our recommendations', () => {
    const schema = composed();
    const readerField = objectType(schema, 'User').getFields().reader;
    expect(readerField && getNamedType(readerField.type).name).toBe('Reader');
    expect(graphsOfField(schema, 'User', 'reader')).toEqual([CMS_GRAPH]);
    expect(graphsOfType(schema, 'Reader')).toEqual([ANALYTICS_GRAPH, CMS_GRAPH].sort());
    expect(graphsOfField(schema, 'Reader', 'recommendations')).toEqual([ANALYTICS_GRAPH]);
  });

  it('keeps our root fields and exposes the joined fields in the API schema', () => {
    expect(result.schema).toBeDefined();
    const api = result.schema?.toAPISchema().toGraphQLJSSchema();
    const query = api?.getQueryType()?.getFields() ?? {};
    expect(Object.keys(query)).toEqual(expect.arrayContaining(['recommendations', 'dashboard', 'frontPage', 'users']));
    expect(Object.keys(query)).not.toContain('_entities');
    const article = api?.getType('Article');
    const articleFields = isObjectType(article) ? Object.keys(article.getFields()) : [];
    expect(articleFields).toEqual(expect.arrayContaining(['url', 'related', 'headline', 'wordCount']));
  });

  it('rejects a CMS that defines a field we own, naming the field', () => {
    const clashingCms = {
      ...cms,
      typeDefs: parse(
        CMS_TYPE_DEFS.replace('wordCount: Int!', 'wordCount: Int!\n    related(experienceId: ID!, clientId: ID): [String!]!'),
      ),
    };
    const clash = composeServices([analytics, clashingCms]);
    expect(clash.errors?.map((e) => e.message).join('\n')).toMatch(/Article\.related/);
  });
});
