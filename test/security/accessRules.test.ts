/**
 * The scope rule read from a schema's own declarations, on a small subgraph
 * schema: @requiresScopes alternatives are OR-ed lists of AND-ed scopes,
 * @authenticated asks only for a verified caller, a type's scopes apply to
 * the fields returning it, and @valueRequiresScopes applies wherever the
 * value is named in an argument, nested input objects and lists included.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { graphql, parse } from 'graphql';
import type { Caller } from '../../src/auth/callers/caller';
import { enforceScopes } from '../../src/graphql/access/enforceScopes';
import { metricRuleOf } from '../../src/graphql/access/metricRule';
import { buildSchema } from '../../src/graphql/subgraphSchema';
import { Metric } from '../../contract';

const schema = enforceScopes(
  buildSubgraphSchema({
    typeDefs: parse(`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@authenticated", "@requiresScopes"])
      directive @valueRequiresScopes(scopes: [[String!]!]!) on ENUM_VALUE
      enum Kind { PLAIN SECRET @valueRequiresScopes(scopes: [["secret:read"]]) }
      input Filter { kinds: [Kind!]! }
      type Vault @requiresScopes(scopes: [["vault:open"]]) { gold: Int }
      type Query {
        either: Int @requiresScopes(scopes: [["a", "b"], ["c"]])
        signedIn: Int @authenticated
        vault: Vault
        search(filter: Filter): Int
        open: Int
      }
    `),
    resolvers: {
      Query: { either: () => 1, signedIn: () => 2, vault: () => ({ gold: 3 }), search: () => 4, open: () => 5 },
    },
  }),
);

async function run(caller: Caller, query: string) {
  const result = await graphql({ schema, source: query, contextValue: { caller } });
  return {
    data: result.data,
    forbidden: (result.errors ?? []).map((error) => [error.path?.join('.'), error.extensions.code, error.message]),
  };
}

const caller = (scopes: string[]): Caller => ({ id: 'test', scopes: new Set(scopes) });

test('alternatives: every scope of at least one list', async () => {
  expect((await run(caller(['a', 'b']), '{ either }')).data).toEqual({ either: 1 });
  expect((await run(caller(['c']), '{ either }')).data).toEqual({ either: 1 });
  const refused = await run(caller(['a']), '{ either open }');
  expect(refused.data).toEqual({ either: null, open: 5 });
  expect(refused.forbidden).toEqual([['either', 'FORBIDDEN', 'Query.either is not readable: Query.either needs the scopes a and b, or c']]);
});

test("@authenticated: any verified caller; a type's scopes apply to the field returning it", async () => {
  expect((await run(caller([]), '{ signedIn }')).data).toEqual({ signedIn: 2 });
  expect((await run(caller([]), '{ vault { gold } }')).forbidden).toEqual([
    ['vault', 'FORBIDDEN', 'Query.vault is not readable: Vault needs the scope vault:open'],
  ]);
  expect((await run(caller(['vault:open']), '{ vault { gold } }')).data).toEqual({ vault: { gold: 3 } });
});

test('a scoped enum value inside an input object list, from a literal or a variable', async () => {
  expect((await run(caller([]), '{ search(filter: { kinds: [PLAIN] }) }')).data).toEqual({ search: 4 });
  expect((await run(caller([]), '{ search(filter: { kinds: [PLAIN, SECRET] }) }')).forbidden).toEqual([
    ['search', 'FORBIDDEN', 'Query.search is not readable: the value Kind.SECRET needs the scope secret:read'],
  ]);
  const viaVariable = await graphql({
    schema,
    source: 'query ($f: Filter) { search(filter: $f) }',
    variableValues: { f: { kinds: ['SECRET'] } },
    contextValue: { caller: caller(['secret:read']) },
  });
  expect(viaVariable.data).toEqual({ search: 4 });
});

test('without the jwt proof (no scopes on the caller) nothing is checked here: the router enforces', async () => {
  expect((await run({ id: 'anonymous' }, '{ either vault { gold } }')).data).toEqual({ either: 1, vault: { gold: 3 } });
});

test("the read path's metric rule comes from the schema's @valueRequiresScopes on Metric", () => {
  const rule = metricRuleOf(buildSchema());
  expect(rule.refusal(Metric.REVENUE_TOTAL, new Set(['reporting:read']))).toBe(
    'the value Metric.REVENUE_TOTAL needs the scope revenue:read',
  );
  expect(rule.refusal(Metric.RPM, new Set(['reporting:read']))).toMatch(/revenue:read/);
  expect(rule.refusal(Metric.REVENUE_TOTAL, new Set(['reporting:read', 'revenue:read']))).toBeUndefined();
  expect(rule.refusal(Metric.PAGE_VIEWS_TOTAL, new Set())).toBeUndefined();
});
