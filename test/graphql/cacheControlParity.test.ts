import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import { cacheControlFromInfo, type CacheScope } from '@apollo/cache-control-types';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse, type GraphQLCompositeType, type GraphQLResolveInfo } from 'graphql';
import { cacheControlPlugins } from '../../src/graphql/responseCache/cacheControlPlugin';

/*
 * src/graphql/responseCache/cacheControlPlugin.ts replaces Apollo's cache-control plugin: the same policy and the same
 * `cache-control` header for every operation. Each operation below runs on two servers over the same schema and
 * resolvers, one with Apollo's plugin, one with ours, and both must end with the same policy and header.
 */

const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  enum CacheControlScope { PUBLIC PRIVATE }
  directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION

  type Query {
    plain: String
    hinted: String @cacheControl(maxAge: 60)
    privateLeaf: String @cacheControl(maxAge: 30, scope: PRIVATE)
    scopeOnly: String @cacheControl(scope: PRIVATE)
    book: Book
    books(n: Int!): [Book] @cacheControl(maxAge: 50)
    inheriting(n: Int!): [Inherit] @cacheControl(maxAge: 40)
    inheritingUnhinted: Inherit
    dynamic(maxAge: Int, scope: CacheControlScope): Dyn @cacheControl(maxAge: 0)
    asyncDynamic(maxAge: Int, scope: CacheControlScope): Dyn @cacheControl(maxAge: 0)
    restricted(maxAge: Int!): Dyn @cacheControl(maxAge: 90)
    fails: Book
    failsAsync: Book @cacheControl(maxAge: 70)
    unhintedObject: Author
    nodes(n: Int!): [Node] @cacheControl(maxAge: 45)
    fromType: String @cacheControl(maxAge: 80)
    asyncList(n: Int!): [Book] @cacheControl(maxAge: 55)
    thing: Thing @cacheControl(maxAge: 60)
    detached: String @cacheControl(maxAge: 60)
    self: Query @cacheControl(maxAge: 70)
  }

  type Mutation {
    touch: String
    touchHinted: String @cacheControl(maxAge: 8)
  }

  type Thing @cacheControl(maxAge: 60) {
    method: String
    name: String
  }

  type Article @key(fields: "id") @cacheControl(maxAge: 30) {
    id: ID!
    title: String @cacheControl(maxAge: 100)
  }

  type Reader @key(fields: "id") {
    id: ID!
    name: String
  }

  type Book @cacheControl(maxAge: 100) {
    title: String
    author: Author
    secret: String @cacheControl(scope: PRIVATE)
    rating: Float @cacheControl(maxAge: 5)
    computed: String
    lowered: String
  }

  type Author {
    name: String
    books: [Book]
  }

  type Inherit @cacheControl(inheritMaxAge: true) {
    name: String
    child: Inherit
    book: Book @cacheControl(inheritMaxAge: true)
    privately: Inherit @cacheControl(inheritMaxAge: true, scope: PRIVATE)
    author: Author @cacheControl(inheritMaxAge: true)
  }

  type Dyn {
    value: String
    nested: Dyn @cacheControl(inheritMaxAge: true)
    hinted: Dyn @cacheControl(maxAge: 12)
  }

  interface Node { id: ID @cacheControl(maxAge: 1) }
  type Short implements Node @cacheControl(maxAge: 20) { id: ID }
  type Long implements Node { id: ID, more: String @cacheControl(maxAge: 3, scope: PRIVATE) }
`);

const book = (i: number) => ({ title: `t${i}`, author: { name: `a${i}`, books: [] } });
const inherit = (depth: number): object => ({ name: `i${depth}`, child: depth > 0 ? inherit(depth - 1) : null, book: book(depth) });
const dyn = { value: 'v', nested: { value: 'n' }, hinted: { value: 'h' } };
const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));

const resolvers = {
  Query: {
    plain: () => 'p',
    hinted: () => 'h',
    privateLeaf: () => 'x',
    scopeOnly: () => 's',
    book: () => book(1),
    books: (_: unknown, { n }: { n: number }) => Array.from({ length: n }, (__, i) => book(i)),
    inheriting: (_: unknown, { n }: { n: number }) => Array.from({ length: n }, (__, i) => inherit(i)),
    inheritingUnhinted: () => inherit(1),
    dynamic: (_: unknown, args: { maxAge?: number; scope?: CacheScope }, __: unknown, info: GraphQLResolveInfo) => {
      cacheControlFromInfo(info).setCacheHint({ maxAge: args.maxAge, scope: args.scope });
      return dyn;
    },
    asyncDynamic: async (_: unknown, args: { maxAge?: number; scope?: CacheScope }, __: unknown, info: GraphQLResolveInfo) => {
      await later(undefined);
      cacheControlFromInfo(info).setCacheHint({ maxAge: args.maxAge, scope: args.scope });
      return dyn;
    },
    restricted: (_: unknown, { maxAge }: { maxAge: number }, __: unknown, info: GraphQLResolveInfo) => {
      cacheControlFromInfo(info).cacheHint.restrict({ maxAge, scope: 'PRIVATE' });
      return dyn;
    },
    fails: () => {
      throw new Error('no book');
    },
    failsAsync: async () => {
      await later(undefined);
      throw new Error('no book yet');
    },
    unhintedObject: () => ({ name: 'u', books: [book(2)] }),
    nodes: (_: unknown, { n }: { n: number }) => Array.from({ length: n }, (__, i) => ({ id: String(i), kind: i % 2 ? 'Long' : 'Short' })),
    fromType: (_: unknown, __: unknown, ___: unknown, info: GraphQLResolveInfo) => {
      const hint = cacheControlFromInfo(info).cacheHintFromType(info.schema.getType('Short') as GraphQLCompositeType);
      if (hint !== undefined) cacheControlFromInfo(info).cacheHint.restrict(hint);
      return 'f';
    },
    asyncList: (_: unknown, { n }: { n: number }) => Array.from({ length: n }, (__, i) => later(book(i))),
    // A source with a method: graphql-js's default resolver calls it with (args, context, info).
    thing: () => ({
      name: 'n',
      method: (_: unknown, __: unknown, info: GraphQLResolveInfo) => {
        cacheControlFromInfo(info).setCacheHint({ maxAge: 5, scope: 'PRIVATE' });
        return 'm';
      },
    }),
    detached: (_: unknown, __: unknown, ___: unknown, info: GraphQLResolveInfo) => {
      const { setCacheHint } = cacheControlFromInfo(info);
      setCacheHint({ maxAge: 5 });
      return 'd';
    },
    self: () => ({}),
  },
  Mutation: {
    touch: () => 't',
    touchHinted: () => 't',
  },
  Article: {
    // (reference, context, info): the resolver map types the third parameter as a context.
    __resolveReference: async (reference: { id: string }, _: unknown, info: unknown) => {
      cacheControlFromInfo(info as GraphQLResolveInfo).cacheHint.restrict({ maxAge: 50, scope: 'PUBLIC' });
      return { ...reference, title: 't' };
    },
  },
  Reader: {
    __resolveReference: async (reference: { id: string }, _: unknown, info: unknown) => {
      cacheControlFromInfo(info as GraphQLResolveInfo).cacheHint.restrict({ maxAge: 86_400, scope: 'PRIVATE' });
      return { ...reference, name: 'r' };
    },
  },
  Book: {
    computed: (_: unknown, __: unknown, ___: unknown, info: GraphQLResolveInfo) => {
      cacheControlFromInfo(info).setCacheHint({ maxAge: 7 });
      return 'c';
    },
    lowered: async (_: unknown, __: unknown, ___: unknown, info: GraphQLResolveInfo) => {
      await later(undefined);
      cacheControlFromInfo(info).setCacheHint({ maxAge: 2, scope: 'PRIVATE' });
      return 'l';
    },
  },
  Node: { __resolveType: (node: { kind: string }) => node.kind },
};

/** Operation names this test gives a meaning: a policy set before execution, or a `cache-control` header set early. */
const presets: ApolloServerPlugin = {
  requestDidStart: async () => ({
    didResolveOperation: async ({ operationName, overallCachePolicy, response }) => {
      if (operationName === 'Pinned') overallCachePolicy.restrict({ maxAge: 10 });
      if (operationName === 'HeaderPublic') response.http.headers.set('cache-control', 'max-age=5, public');
      if (operationName === 'HeaderPrivate') response.http.headers.set('cache-control', 'max-age=500, private');
      if (operationName === 'HeaderNoStore') response.http.headers.set('cache-control', 'no-store');
      if (operationName === 'HeaderOther') response.http.headers.set('cache-control', 'max-age=5, must-revalidate');
    },
  }),
};

interface Outcome {
  maxAge: number | undefined;
  scope: CacheScope | undefined;
  header: string | undefined;
  data: unknown;
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function serverWith(cacheControl: ApolloServerPlugin[], schema = buildSubgraphSchema({ typeDefs, resolvers })) {
  const policies: Outcome[] = [];
  const recorder: ApolloServerPlugin = {
    requestDidStart: async () => ({
      willSendResponse: async ({ overallCachePolicy }) => {
        policies.push({ maxAge: overallCachePolicy.maxAge, scope: overallCachePolicy.scope, header: undefined, data: undefined });
      },
    }),
  };
  const server = new ApolloServer({
    schema,
    logger: quiet,
    plugins: [presets, ...cacheControl, recorder],
  });
  await server.start();
  return {
    server,
    /** `traced`: the router's ftv1 header, under which Apollo's inline trace wraps every field on top of ours. */
    run: async (query: string, traced = false): Promise<Outcome> => {
      const http = {
        method: 'POST',
        headers: new HeaderMap(traced ? [['apollo-federation-include-trace', 'ftv1']] : []),
        search: '',
        body: {},
      };
      const response = await server.executeOperation({ query, http });
      const single = response.body.kind === 'single' ? response.body.singleResult : undefined;
      return { ...policies.pop()!, header: response.http.headers.get('cache-control'), data: single?.data ?? single?.errors?.length };
    },
  };
}

const OPERATIONS = [
  '{ plain }',
  '{ hinted }',
  '{ hinted privateLeaf }',
  '{ scopeOnly hinted }',
  '{ book { title } }',
  '{ book { title secret } }',
  '{ book { rating author { name } } }',
  '{ book { computed } }',
  '{ book { lowered title } }',
  '{ books(n: 0) { title secret } }',
  '{ books(n: 3) { title } }',
  '{ books(n: 2) { rating } }',
  '{ books(n: 2) { author { name } } }',
  '{ books(n: 2) { __typename } hinted }',
  '{ inheriting(n: 0) { name } }',
  '{ inheriting(n: 3) { name child { name child { name } } } }',
  '{ inheriting(n: 2) { book { title } } }',
  '{ inheriting(n: 2) { book { rating } } }',
  '{ inheriting(n: 2) { privately { name } } }',
  '{ inheriting(n: 2) { author { name } } }',
  '{ inheritingUnhinted { name } }',
  '{ inheritingUnhinted { book { title } } }',
  '{ dynamic(maxAge: 30) { value } }',
  '{ dynamic(maxAge: 30, scope: PRIVATE) { value nested { value } } }',
  '{ dynamic(maxAge: 30) { hinted { value } } }',
  '{ dynamic { value } }',
  '{ asyncDynamic(maxAge: 25) { value nested { value } } hinted }',
  '{ asyncDynamic(maxAge: 25, scope: PRIVATE) { value } }',
  '{ restricted(maxAge: 15) { value } }',
  '{ restricted(maxAge: 500) { value } hinted }',
  '{ fails { title } }',
  '{ failsAsync { title } hinted }',
  '{ unhintedObject { name } }',
  '{ unhintedObject { books { title } } }',
  '{ nodes(n: 0) { id } }',
  '{ nodes(n: 1) { id } }',
  '{ nodes(n: 4) { id ... on Long { more } } }',
  '{ fromType }',
  '{ fromType hinted }',
  '{ asyncList(n: 3) { title } }',
  '{ asyncList(n: 2) { lowered } }',
  '{ asyncList(n: 0) { lowered } }',
  '{ __typename }',
  '{ __typename hinted }',
  '{ _service { sdl } }',
  '{ a: hinted b: books(n: 1) { title } ...F } fragment F on Query { privateLeaf }',
  'query Pinned { hinted }',
  'query Pinned { dynamic(maxAge: 3) { value } }',
  'query Pinned { plain }',
  'query HeaderPublic { hinted }',
  'query HeaderPublic { plain }',
  'query HeaderPrivate { hinted }',
  'query HeaderNoStore { hinted }',
  'query HeaderOther { hinted }',
  '{ nope }',
  '{ thing { method } }',
  '{ thing { name } }',
  '{ detached }',
  '{ self { plain } }',
  '{ self { hinted self { hinted } } }',
  'mutation { touch }',
  'mutation { touchHinted }',
  '{ __schema { queryType { name } } }',
  '{ __type(name: "Book") { name } hinted }',
  '{ _entities(representations: [{ __typename: "Article", id: "1" }]) { ... on Article { id title } } }',
  '{ _entities(representations: [{ __typename: "Article", id: "1" }, { __typename: "Reader", id: "2" }]) { ... on Article { id } ... on Reader { name } } }',
  '{ _entities(representations: [{ __typename: "Reader", id: "2" }]) { ... on Reader { id } } }',
];

describe('cache control without per-field hooks', () => {
  let apollo: Awaited<ReturnType<typeof serverWith>>;
  let ours: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    apollo = await serverWith([ApolloServerPluginCacheControl({ defaultMaxAge: 0, calculateHttpHeaders: true })]);
    ours = await serverWith(cacheControlPlugins(0));
  });
  afterAll(async () => {
    await apollo.server.stop();
    await ours.server.stop();
  });

  it.each(OPERATIONS)('ends %s with the policy and header of Apollo’s plugin', async (query) => {
    const expected = await apollo.run(query);
    expect(await ours.run(query)).toStrictEqual(expected);
  });

  it.each(OPERATIONS)('ends %s as Apollo’s plugin does under an inline trace (ftv1)', async (query) => {
    const expected = await apollo.run(query, true);
    expect(await ours.run(query, true)).toStrictEqual(expected);
  });

  it('serves one schema to two servers, each with its own default maxAge', async () => {
    const schema = buildSubgraphSchema({ typeDefs, resolvers });
    const zero = await serverWith(cacheControlPlugins(0), schema);
    const thirty = await serverWith(cacheControlPlugins(30), schema);
    const apolloThirty = await serverWith([ApolloServerPluginCacheControl({ defaultMaxAge: 30, calculateHttpHeaders: true })]);
    try {
      for (const query of ['{ plain }', '{ book { author { name } } }', '{ hinted }']) {
        expect(await thirty.run(query)).toStrictEqual(await apolloThirty.run(query));
        expect(await zero.run(query)).toStrictEqual(await apollo.run(query));
      }
    } finally {
      await Promise.all([zero.server.stop(), thirty.server.stop(), apolloThirty.server.stop()]);
    }
  });

  it('covers cacheable public, cacheable private and uncacheable outcomes (the parity above is not all `no-store`)', async () => {
    const headers = new Set<string | undefined>();
    for (const query of OPERATIONS) headers.add((await ours.run(query)).header);
    expect(headers).toContain('no-store');
    expect([...headers].filter((header) => header?.endsWith(', public')).length).toBeGreaterThanOrEqual(5);
    expect([...headers].filter((header) => header?.endsWith(', private')).length).toBeGreaterThanOrEqual(3);
  });
});
