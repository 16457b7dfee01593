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
import { buildSubgraphSchema } from '@apollo/subgraph';
import { CostEstimator } from '../support/demandCost';
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

function typeCost(typeName: string): Record<string, unknown> | undefined {
  return directiveArgs(supergraph.getType(typeName)?.astNode?.directives, 'cost');
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
    // Per entity: a router sizes every _entities fetch at its list_size (10), and one batch's analytics is one query per window.
    expect(fieldCost('Article', 'analytics')).toEqual({ weight: DASHBOARD_QUERY / 10 });
    // Sized by `limit` (default 10): the default ranking costs exactly one dashboard query.
    expect(fieldCost('Query', 'topArticles')).toEqual({ weight: DASHBOARD_QUERY / 10 });
    expect(listSize('Query', 'topArticles')).toEqual({ slicingArguments: ['limit'], requireOneSlicingArgument: false });
  });

  /**
   * Hive Gateway adds a type's @cost to the field's own (Apollo Router takes
   * the field's and ignores the type's), sizes `_entities` as one entity and
   * multiplies an argument's cost by its field's list size. The type weights
   * make Hive's prices the same policy at 15 times the scale (hiveGateway.test.ts).
   */
  it("weighs types for Hive Gateway's formula without changing Apollo Router's", () => {
    const HIVE_QUERY = DASHBOARD_QUERY * 15; // the dashboard's argument × its list size (assumedSize 15)
    // Pieces of an answer already paid for: 0 instead of Hive's 1 per object (Apollo already reads the fields' @cost(weight: 0)).
    for (const piece of ['Recommendation', 'DashboardResult', 'DashboardRow', 'DimensionValue', 'DataPoint']) {
      expect(typeCost(piece)).toEqual({ weight: 0 });
    }
    // One batch of analytics (Hive: one entity) and ten ranked articles each reach one query on Hive.
    expect(60 + (typeCost('ArticleAnalytics')?.weight as number)).toBe(HIVE_QUERY);
    expect(10 * (60 + (typeCost('ArticleRanking')?.weight as number))).toBe(HIVE_QUERY);
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

/**
 * What the weights make a router refuse, estimated as Apollo Router does
 * (test/support/demandCost.ts) with its documented starting configuration:
 * `static_estimated: { list_size: 10, max: 1000 }`. The reporting plan allows
 * about one dashboard query a minute, so an operation needing two is refused
 * before it reaches us, and one needing a single query is let through.
 */
describe("a router's cost estimate with list_size 10 and max 1000", () => {
  const ROUTER_MAX = 1000;
  const estimator = new CostEstimator(buildSubgraphSchema({ typeDefs: loadAnalyticsTypeDefs() }), 10);
  const cost = (query: string, variables: Record<string, unknown> = {}) => estimator.estimate(parse(query), variables);

  const ONE_METRIC = `{ dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [SECTION] }`;
  const DASHBOARD_SELECTION = `metric total rows { key total dimensions { dimension value } } series { time value } fetchedAt`;
  const ARTICLES = `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Article { url SELECTION } } }`;

  it('lets one dashboard query through and refuses two', () => {
    const one = cost(`{ dashboard(query: ${ONE_METRIC}) { ${DASHBOARD_SELECTION} } }`);
    expect(one).toBeGreaterThanOrEqual(DASHBOARD_QUERY);
    expect(one).toBeLessThanOrEqual(ROUTER_MAX);
    expect(cost(`{ a: dashboard(query: ${ONE_METRIC}) { total } b: dashboard(query: ${ONE_METRIC}) { total } }`)).toBeGreaterThan(
      ROUTER_MAX,
    );
  });

  it('prices a batch of article analytics as one query, and a second window as another', () => {
    const oneWindow = cost(ARTICLES.replace('SELECTION', 'analytics { pageViews uniqueUsers }'));
    expect(oneWindow).toBeGreaterThanOrEqual(DASHBOARD_QUERY);
    expect(oneWindow).toBeLessThanOrEqual(ROUTER_MAX);
    const twoWindows = ARTICLES.replace(
      'SELECTION',
      'week: analytics { pageViews } day: analytics(window: { last: { number: 1, unit: DAY } }) { pageViews }',
    );
    expect(cost(twoWindows)).toBeGreaterThan(ROUTER_MAX);
  });

  it('prices the default topArticles as one query, refused beside a dashboard', () => {
    const top = cost(`{ topArticles { rank value article { url } } }`);
    expect(top).toBeGreaterThanOrEqual(DASHBOARD_QUERY);
    expect(top).toBeLessThanOrEqual(ROUTER_MAX);
    expect(cost(`{ topArticles { rank } dashboard(query: ${ONE_METRIC}) { total } }`)).toBeGreaterThan(ROUTER_MAX);
  });

  it('prices a render.json call at 1 per field, its items by what they join', () => {
    expect(cost(`{ recommendations(experienceId: "IL_x", domain: "d.example") { url title } }`)).toBe(RENDER_CALL);
    // A front page's related articles: per entity (10), the entity, one call, and 50 joinable articles.
    expect(cost(ARTICLES.replace('SELECTION', 'related(experienceId: "IL_x") { url article { url } }'))).toBe(10 * (1 + RENDER_CALL + 50));
  });
});
