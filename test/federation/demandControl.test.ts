/**
 * The demand-control costs (@cost / @listSize, federation 2.9) reach the
 * supergraph a router reads them from: composition carries them from our SDL.
 * The gateway test (gateway.test.ts) serves this same supergraph.
 */
import {
  buildSchema,
  getNullableType,
  isListType,
  isObjectType,
  parse,
  type ConstDirectiveNode,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS } from '../support/federationCms';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';

const supergraphSdl = composeSupergraph([
  { name: ANALYTICS_SUBGRAPH_NAME, url: 'http://analytics.invalid/graphql', typeDefs: loadAnalyticsTypeDefs() },
  { name: CMS_SUBGRAPH_NAME, url: 'http://cms.invalid/graphql', typeDefs: parse(CMS_TYPE_DEFS) },
]).supergraphSdl;
const supergraph: GraphQLSchema = buildSchema(supergraphSdl);

/** The fields that make an upstream call, and the weight of that call. */
const RENDER_CALL = 1;
const DASHBOARD_QUERY = 600;

function field(typeName: string, fieldName: string): GraphQLField<unknown, unknown> {
  const type = supergraph.getType(typeName);
  const found = isObjectType(type) ? type.getFields()[fieldName] : undefined;
  if (!found) throw new Error(`${typeName}.${fieldName} is not in the supergraph`);
  return found;
}

function directiveArgs(directives: readonly ConstDirectiveNode[] | undefined, name: string): Record<string, unknown> | undefined {
  const directive = (directives ?? []).find((d) => d.name.value === name);
  if (!directive) return undefined;
  return Object.fromEntries(
    (directive.arguments ?? []).map((arg) => {
      const { value } = arg;
      if (value.kind === 'IntValue') return [arg.name.value, Number(value.value)];
      if (value.kind === 'BooleanValue') return [arg.name.value, value.value];
      if (value.kind === 'ListValue') return [arg.name.value, value.values.map((v) => (v.kind === 'StringValue' ? v.value : v.kind))];
      return [arg.name.value, value.kind];
    }),
  );
}

function fieldCost(typeName: string, fieldName: string): Record<string, unknown> | undefined {
  return directiveArgs(field(typeName, fieldName).astNode?.directives, 'cost');
}

function argumentCost(typeName: string, fieldName: string, argName: string): Record<string, unknown> | undefined {
  const arg = field(typeName, fieldName).args.find((a) => a.name === argName);
  return directiveArgs(arg?.astNode?.directives, 'cost');
}

function listSize(typeName: string, fieldName: string): Record<string, unknown> | undefined {
  return directiveArgs(field(typeName, fieldName).astNode?.directives, 'listSize');
}

describe('demand-control costs in the composed supergraph', () => {
  it('links the cost spec the router reads @cost and @listSize from', () => {
    expect(supergraphSdl).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/cost\/v0\.1"/);
    expect(supergraph.getDirective('cost')).toBeDefined();
    expect(supergraph.getDirective('listSize')).toBeDefined();
  });

  it('charges one render.json call per recommendations field, on the argument every call needs', () => {
    for (const [typeName, fieldName] of [
      ['Query', 'recommendations'],
      ['Article', 'related'],
      ['Reader', 'recommendations'],
    ] as const) {
      expect(argumentCost(typeName, fieldName, 'experienceId')).toEqual({ weight: RENDER_CALL });
      // The items are pieces of that one answer: free, but their joins (article) still count per item.
      expect(fieldCost(typeName, fieldName)).toEqual({ weight: 0 });
      expect(listSize(typeName, fieldName)).toEqual({ assumedSize: 50 });
    }
  });

  it('charges a dashboard query per field that may need one', () => {
    expect(argumentCost('Query', 'dashboard', 'query')).toEqual({ weight: DASHBOARD_QUERY });
    expect(fieldCost('Query', 'dashboard')).toEqual({ weight: 0 });
    expect(listSize('Query', 'dashboard')).toEqual({ assumedSize: 15 });
    expect(fieldCost('Article', 'analytics')).toEqual({ weight: DASHBOARD_QUERY });
    // Sized by `limit` (default 10): the default ranking costs exactly one dashboard query.
    expect(fieldCost('Query', 'topArticles')).toEqual({ weight: DASHBOARD_QUERY / 10 });
    expect(listSize('Query', 'topArticles')).toEqual({ slicingArguments: ['limit'], requireOneSlicingArgument: false });
  });

  it('sizes every list field of our types', () => {
    const ours = ['Query', 'Recommendation', 'Article', 'Reader', 'DashboardResult', 'DashboardRow', 'ArticleAnalytics', 'ArticleRanking'];
    const unsized: string[] = [];
    for (const typeName of ours) {
      const type = supergraph.getType(typeName);
      if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
      for (const f of Object.values(type.getFields())) {
        const fromOtherSubgraph = (f.astNode?.directives ?? []).some(
          (d) => d.name.value === 'join__field' && !JSON.stringify(d.arguments).includes(ANALYTICS_SUBGRAPH_NAME.toUpperCase()),
        );
        if (isListType(getNullableType(f.type)) && !fromOtherSubgraph && listSize(typeName, f.name) === undefined) {
          unsized.push(`${typeName}.${f.name}`);
        }
      }
    }
    expect(unsized).toEqual([]);
  });
});
