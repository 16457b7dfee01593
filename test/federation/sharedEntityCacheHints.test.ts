/**
 * Article and Reader are shared entities: another subgraph (here a CMS with
 * its own @cacheControl) owns most of their fields. A hint on the entity
 * *type* is composed into the supergraph for every subgraph's fields, and a
 * non-repeatable directive keeps only one subgraph's arguments, so our hints
 * live on our own fields and the other subgraph's hints stay its own. Checked
 * in the composed supergraph (@apollo/composition) and where it matters: Hive
 * Gateway's response cache, which reads the supergraph's hints.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { buildSchema, isObjectType, parse, print, type ConstDirectiveNode, type GraphQLSchema } from 'graphql';
import { postGraphQL } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import { startHiveGateway, type RunningHiveGateway, loadHiveExample, PLACEHOLDER_EXAMPLE_ENV } from '../support/hiveGateway';

/** The shipped example (its demand control and response cache are under test here, not its security). */
const { gatewayConfig } = loadHiveExample(PLACEHOLDER_EXAMPLE_ENV);

/** A CMS that owns Article and hints its own type and fields, composing @cacheControl as we do. */
const HINTED_CMS_TYPE_DEFS = `
  extend schema
    @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@composeDirective"])
    @link(url: "https://specs.apollo.dev/cacheControl/v0.1", import: ["@cacheControl", "CacheControlScope"])
    @composeDirective(name: "@cacheControl")

  enum CacheControlScope { PUBLIC PRIVATE }
  directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION

  type Query {
    frontPage: [Article!]!
    breaking: [Article!]! @cacheControl(maxAge: 5)
  }

  type Article @key(fields: "url") @cacheControl(maxAge: 30) {
    url: String!
    headline: String!
    editorNote: String @cacheControl(maxAge: 10, scope: PRIVATE)
  }

  type Reader @key(fields: "clientId", resolvable: false) {
    clientId: ID!
  }
`;

const CMS_NAME = 'cms';
const ARTICLES = [{ url: 'https://dailyglobe.example/a', headline: 'A', editorNote: null }];

function compose(cmsUrl: string) {
  return composeSupergraph([
    // Never called: the operations below are the CMS's alone.
    { name: ANALYTICS_SUBGRAPH_NAME, url: 'http://analytics.invalid/graphql', typeDefs: loadAnalyticsTypeDefs() },
    { name: CMS_NAME, url: cmsUrl, typeDefs: parse(HINTED_CMS_TYPE_DEFS) },
  ]);
}

function cacheControl(directives: readonly ConstDirectiveNode[] | undefined): string | undefined {
  const found = directives?.filter((d) => d.name.value === 'cacheControl').map((d) => print(d));
  return found && found.length > 0 ? found.join(' ') : undefined;
}

function typeHint(schema: GraphQLSchema, typeName: string): string | undefined {
  return cacheControl(schema.getType(typeName)?.astNode?.directives);
}

function fieldHint(schema: GraphQLSchema, typeName: string, fieldName: string): string | undefined {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  const field = type.getFields()[fieldName];
  if (!field) throw new Error(`${typeName}.${fieldName} is not in the supergraph`);
  return cacheControl(field.astNode?.directives);
}

describe('cache hints on the shared entities, composed beside a CMS that hints its own', () => {
  const composed = compose('http://cms.invalid/graphql');
  const supergraph = buildSchema(composed.supergraphSdl);

  it('the CMS keeps its own hint on the Article type: composition has no second, conflicting one to choose from', () => {
    expect(composed.hints.map((h) => h.definition.code)).not.toContain('INCONSISTENT_NON_REPEATABLE_DIRECTIVE_ARGUMENTS');
    expect(typeHint(supergraph, 'Article')).toBe('@cacheControl(maxAge: 30)');
  });

  it("the CMS's fields keep their own hints, and its unhinted ones get none of ours", () => {
    expect(fieldHint(supergraph, 'Article', 'editorNote')).toBe('@cacheControl(maxAge: 10, scope: PRIVATE)');
    expect(fieldHint(supergraph, 'Query', 'breaking')).toBe('@cacheControl(maxAge: 5)');
    expect(fieldHint(supergraph, 'Article', 'headline')).toBeUndefined();
    expect(fieldHint(supergraph, 'Query', 'frontPage')).toBeUndefined();
  });

  it('our hints are on our own fields of the shared entities, none on the Reader type', () => {
    expect(typeHint(supergraph, 'Reader')).toBeUndefined();
    expect(fieldHint(supergraph, 'Article', 'related')).toBe('@cacheControl(maxAge: 0, scope: PRIVATE)');
    expect(fieldHint(supergraph, 'Article', 'analytics')).toBe('@cacheControl(maxAge: 0)');
    expect(fieldHint(supergraph, 'Reader', 'recommendations')).toBe('@cacheControl(maxAge: 0, scope: PRIVATE)');
    // Where our own types point at a shared entity, the entity inherits the freshness of what holds it.
    expect(fieldHint(supergraph, 'Recommendation', 'article')).toBe('@cacheControl(inheritMaxAge: true)');
    expect(fieldHint(supergraph, 'DashboardRow', 'article')).toBe('@cacheControl(inheritMaxAge: true)');
    expect(fieldHint(supergraph, 'ArticleRanking', 'article')).toBe('@cacheControl(inheritMaxAge: true)');
  });

  it('no type of our schema that another subgraph can also define carries a type-level hint', () => {
    const entities = loadAnalyticsTypeDefs().definitions.flatMap((d) =>
      (d.kind === 'ObjectTypeDefinition' || d.kind === 'ObjectTypeExtension') && d.directives?.some((x) => x.name.value === 'key')
        ? [{ name: d.name.value, hint: cacheControl(d.directives) }]
        : [],
    );
    expect(entities).toEqual([
      { name: 'Article', hint: undefined },
      { name: 'Reader', hint: undefined },
    ]);
  });
});

describe("Hive Gateway's response cache over that supergraph: the CMS's answers get the CMS's TTL", () => {
  let cms: { url: string; close(): Promise<void> };
  let hive: RunningHiveGateway;

  beforeAll(async () => {
    // A CMS that sends no cache-control header (as many non-Apollo servers): only the supergraph's hints speak for it.
    const server = new ApolloServer({
      schema: buildSubgraphSchema({
        typeDefs: parse(HINTED_CMS_TYPE_DEFS),
        resolvers: { Query: { frontPage: () => ARTICLES, breaking: () => ARTICLES } },
      }),
      plugins: [ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginCacheControl({ calculateHttpHeaders: false })],
    });
    const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
    cms = { url, close: () => server.stop() };
    hive = await startHiveGateway(compose(url).supergraphSdl, {
      responseCaching: { ...gatewayConfig.responseCaching, includeExtensionMetadata: true },
    });
  });

  afterAll(async () => {
    await hive?.close();
    await cms?.close();
  });

  async function cacheVerdict(query: string): Promise<unknown> {
    const response = await postGraphQL<unknown>(hive.url, query);
    expect(response.errors).toBeUndefined();
    return response.extensions?.responseCache;
  }

  it('the front page: the 30 s the CMS put on its Article type, not a day', async () => {
    expect(await cacheVerdict('{ frontPage { url headline } }')).toEqual({ hit: false, didCache: true, ttl: 30_000 });
  });

  it('a CMS field hinted lower than the type: its own 5 s', async () => {
    expect(await cacheVerdict('{ breaking { url } }')).toEqual({ hit: false, didCache: true, ttl: 5_000 });
  });
});
