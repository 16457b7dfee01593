/**
 * With the jwt proof on, the subgraph enforces the schema's
 * @requiresScopes itself and limits each caller to its sites, over real
 * HTTP against a real emulator: a field the caller may not read is null with
 * FORBIDDEN while the fields beside it answer, and every refusal happens
 * before any upstream call (the emulator's counts).
 */
import type { RunningEmulator } from '../../emulator';
import { ingestMostRead } from '../support/analytics';
import { readStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import {
  AUDIENCE,
  callerAuth,
  ISSUER,
  postGraphQL,
  serveJwks,
  signingKey,
  signToken,
  type GraphQLAnswer,
  type JwksServer,
  type SigningKey,
} from './support';

const GLOBE = 'dailyglobe.example';
const METRO = 'metrotimes.example';
const SPORTS = 'sportsdesk.example';

let emulator: RunningEmulator;
let jwks: JwksServer;
let key: SigningKey;
let subgraph: RunningSubgraph;
/** The day's most read articles, the test's own (never what the demo data ranks first today), most read first. */
let ranked: string[];

beforeAll(async () => {
  emulator = await startSmallEmulator();
  ranked = await ingestMostRead(
    emulator,
    [
      `https://${METRO}/city/most-read`,
      ...[1, 2, 3].flatMap((n) => [`https://${GLOBE}/news/read-${n}`, `https://${SPORTS}/match/read-${n}`]),
    ].map((url) => ({ url })),
    { at: Date.now() - 2 * 3_600_000 },
  );
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
  subgraph = await startSubgraph(emulator, {
    // The response cache on: a response made for one caller's scopes must never answer another's.
    config: {
      callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' }),
      responseCacheEnabled: true,
    },
  });
});

afterAll(async () => {
  await subgraph?.close();
  await jwks?.close();
  await emulator?.close();
});

async function dashboardQueries(): Promise<number> {
  return (await readStats(emulator)).dashboard.count;
}

async function ask(claims: Record<string, unknown>, query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer> {
  const token = await signToken(key, { claims });
  const answer = await postGraphQL(subgraph.graphqlUrl, query, {
    headers: { authorization: `Bearer ${token}` },
    ...(variables ? { variables } : {}),
  });
  expect(answer.status).toBe(200);
  return answer;
}

function errorAt(answer: GraphQLAnswer, path: Array<string | number>) {
  return answer.body.errors?.find((error) => JSON.stringify(error.path) === JSON.stringify(path));
}

const ALL_SITES = [GLOBE, METRO, SPORTS];
const experienceId = () => emulator.demo.experiences.find((experience) => experience.domain === GLOBE)!.id;
const TRAFFIC = `dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [DOMAIN] }) {
  rows { total dimensions { value } }
}`;

describe('scopes from the schema', () => {
  test('without reporting:read, dashboard is null with FORBIDDEN and recommendations beside it answer; no reporting query', async () => {
    const before = await dashboardQueries();
    const answer = await ask(
      { scope: 'profile', sites: ALL_SITES },
      `{ ${TRAFFIC} recommendations(experienceId: "${experienceId()}", domain: "${GLOBE}") { url } }`,
    );
    expect(answer.body.data?.dashboard).toBeNull();
    expect(errorAt(answer, ['dashboard'])?.extensions?.code).toBe('FORBIDDEN');
    expect(errorAt(answer, ['dashboard'])?.message).toMatch(/Query\.dashboard needs the scope reporting:read/);
    expect((answer.body.data?.recommendations as unknown[]).length).toBeGreaterThan(0);
    expect(await dashboardQueries()).toBe(before);
  });

  test('a response cached for a reader is never served to a caller without the scope', async () => {
    const reader = await ask({ scope: 'reporting:read', sites: ALL_SITES }, `{ ${TRAFFIC} }`);
    expect(reader.body.errors).toBeUndefined();
    const stranger = await ask({ scope: 'profile', sites: ALL_SITES }, `{ ${TRAFFIC} }`);
    expect(stranger.body.data?.dashboard).toBeNull();
    expect(errorAt(stranger, ['dashboard'])?.extensions?.code).toBe('FORBIDDEN');
  });

  test('a dashboard naming a revenue metric without revenue:read is refused whole, before the budget', async () => {
    const before = await dashboardQueries();
    const answer = await ask(
      { scp: ['reporting:read'], sites: ALL_SITES },
      `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL, REVENUE_TOTAL] }) { metric total } }`,
    );
    expect(answer.body.data?.dashboard).toBeNull();
    expect(errorAt(answer, ['dashboard'])?.extensions?.code).toBe('FORBIDDEN');
    expect(errorAt(answer, ['dashboard'])?.message).toMatch(/the value Metric\.REVENUE_TOTAL needs the scope revenue:read/);
    expect(await dashboardQueries()).toBe(before);
  });

  test('topArticles ranked by a revenue metric needs revenue:read too', async () => {
    const answer = await ask({ scope: 'reporting:read', sites: ALL_SITES }, `{ topArticles(metric: CPM, limit: 3) { value } }`);
    expect(answer.body.data?.topArticles).toBeNull();
    expect(errorAt(answer, ['topArticles'])?.extensions?.code).toBe('FORBIDDEN');
  });

  test('ArticleAnalytics.revenue and metric(RPM) are null with FORBIDDEN; pageViews beside them answers', async () => {
    const answer = await ask(
      { scope: 'reporting:read', sites: ALL_SITES },
      `{ topArticles(limit: 2) { article { url analytics { pageViews revenue rpm: metric(metric: RPM) scroll: metric(metric: AVERAGE_SCROLL) } } } }`,
    );
    const rows = answer.body.data?.topArticles as Array<{ article: { analytics: Record<string, number | null> } }>;
    expect(rows).toHaveLength(2);
    for (const [index, row] of rows.entries()) {
      expect(row.article.analytics.pageViews).toEqual(expect.any(Number));
      expect(row.article.analytics.scroll).toEqual(expect.any(Number));
      expect(row.article.analytics.revenue).toBeNull();
      expect(row.article.analytics.rpm).toBeNull();
      expect(errorAt(answer, ['topArticles', index, 'article', 'analytics', 'revenue'])?.extensions?.code).toBe('FORBIDDEN');
      expect(errorAt(answer, ['topArticles', index, 'article', 'analytics', 'rpm'])?.extensions?.code).toBe('FORBIDDEN');
    }
  });

  test('with revenue:read the same fields are read', async () => {
    const answer = await ask(
      { scope: 'reporting:read revenue:read', sites: ALL_SITES },
      `{ topArticles(limit: 1) { article { analytics { revenue } } } dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [REVENUE_TOTAL] }) { total } }`,
    );
    expect(answer.body.errors?.filter((error) => error.extensions?.code === 'FORBIDDEN') ?? []).toEqual([]);
    expect(answer.body.data?.dashboard).toEqual([{ total: expect.any(Number) }]);
  });
});

describe('sites per caller (JWT_SITES_CLAIM)', () => {
  const READER = 'reporting:read';

  test("dashboard gets the caller's domains as a filter, combined with the query's own", async () => {
    const answer = await ask({ scope: READER, sites: [GLOBE] }, `{ ${TRAFFIC} }`);
    const rows = answer.body.data?.dashboard as Array<{ rows: Array<{ dimensions: Array<{ value: string }> }> }>;
    expect(rows[0].rows.map((row) => row.dimensions[0].value)).toEqual([GLOBE]);

    const both = await ask(
      { scope: READER, sites: [GLOBE, METRO] },
      `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [DOMAIN], filters: [{ dimension: DOMAIN, operator: NEQ, values: ["${METRO}"] }] }) { rows { dimensions { value } } } }`,
    );
    const bothRows = both.body.data?.dashboard as Array<{ rows: Array<{ dimensions: Array<{ value: string }> }> }>;
    expect(bothRows[0].rows.map((row) => row.dimensions[0].value)).toEqual([GLOBE]);
  });

  test("a domain outside the caller's sites is FORBIDDEN, with no reporting query", async () => {
    const before = await dashboardQueries();
    const dashboard = await ask(
      { scope: READER, sites: [GLOBE] },
      `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], filters: [{ dimension: DOMAIN, operator: EQ, values: ["${METRO}"] }] }) { total } }`,
    );
    expect(errorAt(dashboard, ['dashboard'])?.extensions?.code).toBe('FORBIDDEN');
    expect(errorAt(dashboard, ['dashboard'])?.message).toContain(METRO);
    const ranking = await ask({ scope: READER, sites: [GLOBE] }, `{ topArticles(domain: "${METRO}") { value } }`);
    expect(errorAt(ranking, ['topArticles'])?.extensions?.code).toBe('FORBIDDEN');
    const none = await ask({ scope: READER }, `{ topArticles { value } }`);
    expect(errorAt(none, ['topArticles'])?.message).toMatch(/may read no site/);
    expect(await dashboardQueries()).toBe(before);
  });

  test("topArticles: the rows of the caller's sites, picked from the one shared table", async () => {
    const everyone = await ask({ scope: READER, sites: ALL_SITES }, `{ topArticles(limit: 100) { value article { url } } }`);
    const allRows = everyone.body.data?.topArticles as Array<{ value: number; article: { url: string } }>;
    const before = await dashboardQueries();
    const two = await ask({ scope: READER, sites: [GLOBE, SPORTS] }, `{ topArticles(limit: 5) { rank value article { url } } }`);
    const rows = two.body.data?.topArticles as Array<{ rank: number; value: number; article: { url: string } }>;
    expect(allRows.slice(0, ranked.length).map((row) => row.article.url)).toEqual(ranked);
    const expected = allRows.filter((row) => [GLOBE, SPORTS].includes(new URL(row.article.url).hostname)).slice(0, 5);
    expect(expected.map((row) => row.article.url)).toEqual(ranked.filter((url) => new URL(url).hostname !== METRO).slice(0, 5));
    expect(rows.map((row) => row.article.url)).toEqual(expected.map((row) => row.article.url));
    expect(rows.map((row) => row.rank)).toEqual([1, 2, 3, 4, 5]);
    // The shared table answered: no query of its own for this caller.
    expect(await dashboardQueries()).toBe(before);

    const one = await ask({ scope: READER, sites: [METRO] }, `{ topArticles(limit: 5) { article { url } } }`);
    const metroRows = one.body.data?.topArticles as Array<{ article: { url: string } }>;
    expect(metroRows[0].article.url).toBe(ranked[0]);
    expect(metroRows.every((row) => new URL(row.article.url).hostname === METRO)).toBe(true);
  });

  test("Article.analytics of an article on another site is null with FORBIDDEN, asking nothing; its own site's answers", async () => {
    const globeArticle = emulator.store.articles.find((article) => article.domain === GLOBE)!.url;
    const metroArticle = emulator.store.articles.find((article) => article.domain === METRO)!.url;
    const before = await dashboardQueries();
    const answer = await ask(
      { scope: READER, sites: [METRO] },
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url analytics(window: { last: { number: 3, unit: DAY } }) { pageViews } } } }`,
      { reps: [{ __typename: 'Article', url: globeArticle }] },
    );
    const entities = answer.body.data?._entities as Array<{ url: string; analytics: unknown }>;
    expect(entities[0]).toEqual({ url: globeArticle, analytics: null });
    expect(errorAt(answer, ['_entities', 0, 'analytics'])?.extensions?.code).toBe('FORBIDDEN');
    expect(await dashboardQueries()).toBe(before);

    const own = await ask(
      { scope: READER, sites: [METRO] },
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews } } } }`,
      { reps: [{ __typename: 'Article', url: metroArticle }] },
    );
    expect(own.body.errors).toBeUndefined();
    expect((own.body.data?._entities as Array<{ analytics: { pageViews: number } }>)[0].analytics.pageViews).toEqual(expect.any(Number));
  });
});
