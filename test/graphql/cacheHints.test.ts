import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  getNamedType,
  isCompositeType,
  isObjectType,
  Kind,
  type ConstDirectiveNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { dashboardTtlSeconds, PAST_WINDOW_TTL_SECONDS } from '../../src/kernel/dashboardTtl';
import { remainingSeconds } from '../../src/graphql/responseCache/cacheHints';
import { resolvers } from '../../src/graphql/resolvers';
import { loadTypeDefs } from '../../src/graphql/schema';
import { fakeRecommender, itemsFor, startTestServer } from '../support/subgraph';

type Hint = Record<string, string | number | boolean>;

/** The arguments of a `@cacheControl` on a type or field, or undefined without one. */
function cacheControlOf(node: { directives?: readonly ConstDirectiveNode[] } | null | undefined): Hint | undefined {
  const directive = node?.directives?.find((d) => d.name.value === 'cacheControl');
  if (!directive) return undefined;
  const hint: Hint = {};
  for (const arg of directive.arguments ?? []) {
    const { value } = arg;
    if (value.kind === Kind.INT) hint[arg.name.value] = Number(value.value);
    else if (value.kind === Kind.ENUM || value.kind === Kind.BOOLEAN) hint[arg.name.value] = value.value;
  }
  return hint;
}

function typeHint(type: GraphQLNamedType): Hint | undefined {
  return cacheControlOf(type.astNode);
}

describe('static cache hints in the schema', () => {
  const schema: GraphQLSchema = buildSubgraphSchema({ typeDefs: loadTypeDefs(), resolvers });
  const ours = new Set(
    loadTypeDefs().definitions.flatMap((d) =>
      d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION ? [d.name.value] : [],
    ),
  );

  it('give every root field and every field with sub-fields a deliberate hint (else Apollo counts it as maxAge 0)', () => {
    const unhinted: string[] = [];
    for (const typeName of ours) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
      for (const field of Object.values(type.getFields()).filter((f) => !f.name.startsWith('_'))) {
        const target = getNamedType(field.type);
        const needsHint = typeName === 'Query' || isCompositeType(target);
        const hinted = cacheControlOf(field.astNode) !== undefined || (isCompositeType(target) && typeHint(target) !== undefined);
        if (needsHint && !hinted) unhinted.push(`${typeName}.${field.name}`);
      }
    }
    expect(unhinted).toEqual([]);
  });

  it('fall back to uncacheable (maxAge 0) exactly on the upstream-backed fields, whose resolvers set the TTL from config', () => {
    const fallbacks: string[] = [];
    for (const typeName of ours) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (cacheControlOf(field.astNode)?.maxAge === 0) fallbacks.push(`${typeName}.${field.name}`);
      }
    }
    expect(fallbacks.sort()).toEqual([
      'Article.analytics',
      'Article.related',
      'Query.dashboard',
      'Query.recommendations',
      'Query.topArticles',
      'Reader.recommendations',
    ]);
    const reader = schema.getType('Reader');
    expect(isObjectType(reader) && cacheControlOf(reader.getFields().recommendations.astNode)).toEqual({ maxAge: 0, scope: 'PRIVATE' });
  });

  it("never hint the shared entity types: the supergraph would apply the hint to every subgraph's fields of them", () => {
    const hints = ['Article', 'Reader'].map((name) => {
      const type = schema.getType(name);
      return type && typeHint(type);
    });
    expect(hints).toEqual([undefined, undefined]);
    // Our fields that lead to a shared entity inherit the freshness of the answer that holds it.
    const leads = ['Recommendation', 'DashboardRow', 'ArticleRanking'].map((name) => {
      const type = schema.getType(name);
      return isObjectType(type) ? cacheControlOf(type.getFields().article.astNode) : undefined;
    });
    expect(leads).toEqual(Array(3).fill({ inheritMaxAge: true }));
  });

  it('let the parts of an answer inherit the freshness of the field that fetched it', () => {
    const inheriting = [
      'Recommendation',
      'DashboardResult',
      'DashboardRow',
      'DimensionValue',
      'DataPoint',
      'ArticleAnalytics',
      'ArticleRanking',
    ].map((name) => {
      const type = schema.getType(name);
      return type && typeHint(type);
    });
    expect(inheriting).toEqual(Array(7).fill({ inheritMaxAge: true }));
  });
});

describe('remainingSeconds', () => {
  const fetchedAt = Date.UTC(2026, 10, 20, 12);

  it('is the TTL for a fresh answer, less its age for a cached one (whole seconds, rounded up)', () => {
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt })).toBe(60);
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt + 400 })).toBe(60);
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt + 20_000 })).toBe(40);
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt + 59_001 })).toBe(1);
  });

  it('is 0 for an answer past its TTL (served stale) and for a TTL of 0', () => {
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt + 60_000 })).toBe(0);
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt + 3_600_000 })).toBe(0);
    expect(remainingSeconds({ ttlSeconds: 0, fetchedAt, now: fetchedAt })).toBe(0);
  });

  it('never exceeds the TTL when clocks disagree (an answer stamped in the future)', () => {
    expect(remainingSeconds({ ttlSeconds: 60, fetchedAt, now: fetchedAt - 5_000 })).toBe(60);
  });
});

describe('dashboardTtlSeconds', () => {
  const now = Date.parse('2026-11-20T12:00:00Z');

  it('is the configured TTL for windows that reach the present', () => {
    expect(dashboardTtlSeconds({ last: { number: 7, unit: 'day' } }, now, 60)).toBe(60);
    expect(dashboardTtlSeconds({ range: { start: '2026-11-01', end: '2026-11-20' } }, now, 60)).toBe(60);
    expect(dashboardTtlSeconds({ range: { start: '2026-11-01', end: '2026-11-20T12:00:00Z' } }, now, 60)).toBe(60);
  });

  it('is an hour once the window has ended (a date-only end lasts its whole day)', () => {
    expect(PAST_WINDOW_TTL_SECONDS).toBe(3600);
    expect(dashboardTtlSeconds({ range: { start: '2026-11-01', end: '2026-11-19' } }, now, 60)).toBe(3600);
    expect(dashboardTtlSeconds({ range: { start: '2026-11-01', end: '2026-11-20T11:59:59Z' } }, now, 60)).toBe(3600);
  });

  it('is 0 for every window when the configured TTL is 0 (caching off)', () => {
    expect(dashboardTtlSeconds({ range: { start: '2020-01-01', end: '2020-01-02' } }, now, 0)).toBe(0);
    expect(dashboardTtlSeconds({ last: { number: 1, unit: 'hour' } }, now, 0)).toBe(0);
  });
});

describe('the hint of an answer that has aged', () => {
  it('counts down from the TTL by the age of the answer the datasource returned', async () => {
    const recommender = fakeRecommender();
    // An answer fetched 20 s ago, as the shared cache would return it.
    recommender.render = async (params) => ({ value: itemsFor(params), fetchedAt: Date.now() - 20_000, cache: 'hit' });
    const server = await startTestServer({ recommender, config: { cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60 } } });
    try {
      const response = await server.apollo.executeOperation(
        { query: '{ recommendations(experienceId: "IL_1", domain: "news.example") { url } }' },
        { contextValue: server.createContext() },
      );
      expect(response.body.kind === 'single' && response.body.singleResult.errors).toBeUndefined();
      // 40 s left; 39 if the clock ticked past a whole second between the two Date.now() calls.
      expect(response.http.headers.get('cache-control')).toMatch(/^max-age=(40|39), public$/);
    } finally {
      await server.stop();
    }
  });
});
