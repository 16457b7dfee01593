/**
 * Cache hints over real HTTP: the subgraph against the emulator, its TTLs
 * set through ServerConfig, each field asked on its own so the response's
 * `cache-control` header is that field's hint (the plugin folds every
 * field's hint into one header: the lowest max-age, private if any is).
 */
import type { RunningEmulator } from '../../emulator';
import { readStats, resetStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

const RENDER_TTL = 45;
const DASHBOARD_TTL = 30;

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;
/** The same subgraph with both answer caches turned off (TTL 0). */
let uncached: RunningSubgraph;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  [subgraph, uncached] = await Promise.all([
    startSubgraph(emulator, { config: { cache: { renderTtlSeconds: RENDER_TTL, dashboardTtlSeconds: DASHBOARD_TTL } } }),
    startSubgraph(emulator, { config: { cache: { renderTtlSeconds: 0, dashboardTtlSeconds: 0 } } }),
  ]);
});

afterAll(async () => {
  await Promise.all([subgraph?.close(), uncached?.close()]);
  await emulator?.close();
});

interface HintedResponse {
  cacheControl: string | null;
  errors: unknown[] | undefined;
  data: unknown;
}

/** One POST, keeping what postGraphQL drops: the response's cache-control header. */
async function post(target: RunningSubgraph, query: string, variables: Record<string, unknown> = {}): Promise<HintedResponse> {
  const response = await fetch(target.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
  return { cacheControl: response.headers.get('cache-control'), errors: body.errors, data: body.data };
}

function experience(rankingProfile: string): { id: string; domain: string } {
  const found = emulator.demo.experiences.find((candidate) => candidate.rankingProfile === rankingProfile);
  if (!found) throw new Error(`no seeded ${rankingProfile} experience`);
  return found;
}

function articleUrl(): string {
  const { domain } = experience('similar');
  const article = emulator.store.articles.find((candidate) => candidate.domain === domain);
  if (!article) throw new Error(`no article on ${domain}`);
  return article.url;
}

const RECOMMENDATIONS = `query ($experienceId: ID!, $domain: String, $clientId: ID) {
  recommendations(experienceId: $experienceId, domain: $domain, clientId: $clientId) { url title fetchedAt article { url } }
}`;
const RELATED = `query ($reps: [_Any!]!, $experienceId: ID!, $clientId: ID) {
  _entities(representations: $reps) { ... on Article { url related(experienceId: $experienceId, clientId: $clientId) { url } } }
}`;
const READER = `query ($experienceId: ID!, $domain: String) {
  _entities(representations: [{ __typename: "Reader", clientId: "reader-a" }]) {
    ... on Reader { clientId recommendations(experienceId: $experienceId, domain: $domain) { url } }
  }
}`;
const DASHBOARD = `query ($query: DashboardQueryInput!) {
  dashboard(query: $query) { metric total fetchedAt rows { key total dimensions { dimension value } article { url } } series { time value } }
}`;
const LAST_7_DAYS = { dates: { last: { number: 7, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'], groupBy: ['URL'], limit: 3 };
const ENDED_IN_2020 = { dates: { range: { start: '2020-03-01', end: '2020-03-02' } }, metrics: ['PAGE_VIEWS_TOTAL'] };

describe('the cache-control header of each field', () => {
  it('recommendations: public for the render TTL, private when personalized by clientId', async () => {
    const { id, domain } = experience('mostRead');
    const shared = await post(subgraph, RECOMMENDATIONS, { experienceId: id, domain });
    const personal = await post(subgraph, RECOMMENDATIONS, { experienceId: id, domain, clientId: 'reader-a' });
    expect([shared.errors, personal.errors]).toEqual([undefined, undefined]);
    expect(shared.cacheControl).toBe(`max-age=${RENDER_TTL}, public`);
    expect(personal.cacheControl).toBe(`max-age=${RENDER_TTL}, private`);
  });

  it('Article.related through _entities: public for the render TTL, private with a clientId', async () => {
    const reps = [{ __typename: 'Article', url: articleUrl() }];
    const experienceId = experience('similar').id;
    const shared = await post(subgraph, RELATED, { reps, experienceId });
    const personal = await post(subgraph, RELATED, { reps, experienceId, clientId: 'reader-a' });
    expect([shared.errors, personal.errors]).toEqual([undefined, undefined]);
    expect(shared.cacheControl).toBe(`max-age=${RENDER_TTL}, public`);
    expect(personal.cacheControl).toBe(`max-age=${RENDER_TTL}, private`);
  });

  it('an Article reference alone is only its url, which never changes: a day', async () => {
    const response = await post(subgraph, `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url } } }`, {
      reps: [{ __typename: 'Article', url: articleUrl() }],
    });
    expect(response.errors).toBeUndefined();
    expect(response.cacheControl).toBe('max-age=86400, public');
  });

  it('a Reader reference alone: a day, private (the hint set at run time, not on the shared type)', async () => {
    const response = await post(
      subgraph,
      `{ _entities(representations: [{ __typename: "Reader", clientId: "reader-a" }]) { ... on Reader { clientId } } }`,
    );
    expect(response.errors).toBeUndefined();
    expect(response.cacheControl).toBe('max-age=86400, private');
  });

  it('a batch of Articles and a Reader: private, as the Reader makes it', async () => {
    const response = await post(
      subgraph,
      `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { url } ... on Reader { clientId } } }`,
      {
        reps: [
          { __typename: 'Article', url: articleUrl() },
          { __typename: 'Reader', clientId: 'reader-a' },
          { __typename: 'Article', url: articleUrl() },
        ],
      },
    );
    expect(response.errors).toBeUndefined();
    expect(response.cacheControl).toBe('max-age=86400, private');
  });

  it('Reader.recommendations: always private', async () => {
    const { id, domain } = experience('personalized');
    const response = await post(subgraph, READER, { experienceId: id, domain });
    expect(response.errors).toBeUndefined();
    expect(response.cacheControl).toBe(`max-age=${RENDER_TTL}, private`);
  });

  it('dashboard: public for the dashboard TTL while the window reaches the present, an hour once it ended', async () => {
    const live = await post(subgraph, DASHBOARD, { query: LAST_7_DAYS });
    const ended = await post(subgraph, DASHBOARD, { query: ENDED_IN_2020 });
    expect([live.errors, ended.errors]).toEqual([undefined, undefined]);
    expect(live.cacheControl).toBe(`max-age=${DASHBOARD_TTL}, public`);
    expect(ended.cacheControl).toBe('max-age=3600, public');
  });

  it('one operation takes the lowest max-age of its fields, and private if any field is', async () => {
    const { id, domain } = experience('mostRead');
    const response = await post(
      subgraph,
      `query ($query: DashboardQueryInput!, $experienceId: ID!, $domain: String) {
        dashboard(query: $query) { total }
        shared: recommendations(experienceId: $experienceId, domain: $domain) { url }
        personal: recommendations(experienceId: $experienceId, domain: $domain, clientId: "reader-b") { url }
      }`,
      { query: LAST_7_DAYS, experienceId: id, domain },
    );
    expect(response.errors).toBeUndefined();
    expect(response.cacheControl).toBe(`max-age=${Math.min(DASHBOARD_TTL, RENDER_TTL)}, private`);
  });

  it('no-store when a field failed, even though its siblings are cacheable', async () => {
    const { id, domain } = experience('mostRead');
    const response = await post(
      subgraph,
      `query ($experienceId: ID!, $domain: String) {
        known: recommendations(experienceId: $experienceId, domain: $domain) { url }
        unknown: recommendations(experienceId: "IL_doesNotExist0000000000", domain: $domain) { url }
      }`,
      { experienceId: id, domain },
    );
    const data = response.data as { known: unknown[] | null; unknown: unknown[] | null };
    expect(data.known?.length).toBeGreaterThan(0);
    expect(data.unknown).toBeNull();
    expect(response.cacheControl).toBe('no-store');
  });

  it('no-store everywhere when the TTLs are 0 (caching turned off), and the upstream is still called', async () => {
    const { id, domain } = experience('mostRead');
    await resetStats(emulator);
    const recommendations = await post(uncached, RECOMMENDATIONS, { experienceId: id, domain });
    const live = await post(uncached, DASHBOARD, { query: LAST_7_DAYS });
    const ended = await post(uncached, DASHBOARD, { query: ENDED_IN_2020 });
    expect([recommendations.errors, live.errors, ended.errors]).toEqual([undefined, undefined, undefined]);
    expect([recommendations.cacheControl, live.cacheControl, ended.cacheControl]).toEqual(['no-store', 'no-store', 'no-store']);
    expect(await readStats(emulator)).toMatchObject({ render: { count: 1 }, dashboard: { count: 2 } });
  });
});
