/**
 * The subgraph behind a real router: @apollo/gateway over a supergraph of our
 * subgraph and a CMS subgraph, every hop real HTTP on ephemeral ports, the
 * emulator as the upstream. Asserts the joined data and the shape of the
 * upstream work: the gateway batches `_entities`, our per-request DataLoader
 * dedupes, so render.json runs once per distinct parameter set.
 */
import { parse } from 'graphql';
import type { RunningEmulator } from '../../emulator';
import type { Experience, RankingProfile } from '../../emulator/store';
import { call, startTestEmulator } from '../support/emulator';
import { startFailingRenderProxy, type FailingRenderProxy } from '../support/failingRenderProxy';
import { startAnalyticsSubgraph, type RunningAnalyticsSubgraph } from '../support/federationAnalytics';
import { buildCmsData, CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS, startCmsSubgraph, type RunningCmsSubgraph } from '../support/federationCms';
import { postGraphQL, startGateway, type RunningGateway } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';

const DOMAIN = 'dailyglobe.example';
const FRONT_PAGE_SIZE = 50;
const DISTINCT_FRONT_PAGE_ARTICLES = 35;
const USER_COUNT = 100;
const DISTINCT_READERS = 40;

interface StatsBody {
  signin: { count: number; distinct: number };
  dashboard: { count: number; distinct: number };
  render: { count: number; distinct: number };
}

interface RecommendationData {
  url: string;
  title: string;
  position: number;
  article: { headline: string };
}

let emulator: RunningEmulator;
/** Between our subgraph and the emulator: transparent unless a test makes chosen render.json calls fail. */
let proxy: FailingRenderProxy;
let analytics: RunningAnalyticsSubgraph;
let cms: RunningCmsSubgraph;
let gateway: RunningGateway;

async function resetUpstreamStats(): Promise<void> {
  const response = await call(emulator, '/__emulator/stats', { method: 'DELETE' });
  if (response.status >= 300) throw new Error(`DELETE /__emulator/stats answered ${response.status}`);
}

async function upstreamStats(): Promise<StatsBody> {
  return (await call<StatsBody>(emulator, '/__emulator/stats')).body;
}

function experience(profile: RankingProfile): Experience {
  const found = emulator.demo.experiences.find((e) => e.domain === DOMAIN && e.rankingProfile === profile);
  if (!found) throw new Error(`the emulator has no ${profile} experience for ${DOMAIN}`);
  return found;
}

function headlineOf(url: string): string | undefined {
  return cms.data.articles.find((a) => a.url === url)?.headline;
}

beforeAll(async () => {
  // 0.05: enough articles on one domain for a 35-story front page, still quick to generate.
  emulator = await startTestEmulator({ scale: 0.05 });
  proxy = await startFailingRenderProxy(emulator.url);
  analytics = await startAnalyticsSubgraph(proxy.url);
  cms = await startCmsSubgraph(
    buildCmsData(emulator.store.articles, {
      domain: DOMAIN,
      distinctFrontPageArticles: DISTINCT_FRONT_PAGE_ARTICLES,
      frontPageSize: FRONT_PAGE_SIZE,
      clientIds: emulator.store.clients.values.slice(0, DISTINCT_READERS),
      userCount: USER_COUNT,
    }),
  );
  const supergraph = composeSupergraph([
    { name: ANALYTICS_SUBGRAPH_NAME, url: analytics.url, typeDefs: loadAnalyticsTypeDefs() },
    { name: CMS_SUBGRAPH_NAME, url: cms.url, typeDefs: parse(CMS_TYPE_DEFS) },
  ]);
  gateway = await startGateway(supergraph.supergraphSdl);
}, 20000);

afterAll(async () => {
  // Router first, upstream last: nothing is left calling a closed server.
  await gateway?.close();
  await Promise.all([cms?.close(), analytics?.close()]);
  await proxy?.close();
  await emulator?.close();
});

beforeEach(async () => {
  await resetUpstreamStats();
  cms.resetCounters();
  proxy.failWhen(() => false);
  proxy.failed.length = 0;
});

describe('a front page through the gateway', () => {
  const FRONT_PAGE = `
    query FrontPage($experienceId: ID!) {
      frontPage {
        url
        headline
        related(experienceId: $experienceId) { url title position article { headline } }
      }
    }`;

  it('joins CMS headlines with our related articles, one render.json call per distinct url', async () => {
    const similar = experience('similar');
    const response = await postGraphQL<{ frontPage: { url: string; headline: string; related: RecommendationData[] }[] }>(
      gateway.url,
      FRONT_PAGE,
      { experienceId: similar.id },
    );

    expect(response.errors).toBeUndefined();
    const frontPage = response.data?.frontPage ?? [];
    expect(frontPage.map((a) => a.url)).toEqual(cms.data.frontPage);
    expect(frontPage.map((a) => a.headline)).toEqual(cms.data.frontPage.map(headlineOf));

    for (const slot of frontPage) {
      expect(slot.related.length).toBeGreaterThan(0);
      expect(slot.related.length).toBeLessThanOrEqual(similar.size);
      expect(slot.related.map((r) => r.position)).toEqual(slot.related.map((_, i) => i + 1));
      expect(slot.related.map((r) => r.url)).not.toContain(slot.url);
      // The second hop: recommended articles joined back to the CMS for their headline.
      expect(slot.related.map((r) => r.article.headline)).toEqual(slot.related.map((r) => headlineOf(r.url)));
    }
    const relatedByUrl = new Map(frontPage.map((slot) => [slot.url, slot.related]));
    for (const slot of frontPage) expect(slot.related).toEqual(relatedByUrl.get(slot.url));

    const stats = await upstreamStats();
    expect(stats.render).toEqual({ count: DISTINCT_FRONT_PAGE_ARTICLES, distinct: DISTINCT_FRONT_PAGE_ARTICLES });
    // One root fetch and one batched `_entities` fetch for every recommended article. The gateway
    // passes every representation, duplicates included: deduplication is the subgraph's job.
    expect(cms.counters).toMatchObject({ frontPage: 1, operations: 2, entityOperations: 1 });
    expect(cms.counters.articleReferences).toBe(frontPage.flatMap((slot) => slot.related).length);
  });
});

describe('site users as readers through the gateway', () => {
  it('personalizes per reader, one render.json call per distinct client id', async () => {
    const personalized = experience('personalized');
    const response = await postGraphQL<{
      users: { id: string; reader: { clientId: string; recommendations: { url: string; position: number }[] } }[];
    }>(
      gateway.url,
      `query Readers($experienceId: ID!, $domain: String) {
        users { id reader { clientId recommendations(experienceId: $experienceId, domain: $domain) { url position } } }
      }`,
      { experienceId: personalized.id, domain: DOMAIN },
    );

    expect(response.errors).toBeUndefined();
    const users = response.data?.users ?? [];
    expect(users.map((u) => [u.id, u.reader.clientId])).toEqual(cms.data.users.map((u) => [u.id, u.clientId]));
    const byClient = new Map<string, { url: string; position: number }[]>();
    for (const user of users) {
      expect(user.reader.recommendations.length).toBeGreaterThan(0);
      const earlier = byClient.get(user.reader.clientId);
      if (earlier) expect(user.reader.recommendations).toEqual(earlier);
      else byClient.set(user.reader.clientId, user.reader.recommendations);
    }
    expect(byClient.size).toBe(DISTINCT_READERS);

    const stats = await upstreamStats();
    expect(stats.render).toEqual({ count: DISTINCT_READERS, distinct: DISTINCT_READERS });
    expect(cms.counters).toMatchObject({ users: 1, operations: 1, entityOperations: 0 });
  });
});

describe('errors through the gateway', () => {
  const UNKNOWN_EXPERIENCE = 'IL_unknownExperience00000';

  it('carries NOT_FOUND at the failing field while sibling fields resolve', async () => {
    const [url] = cms.data.frontPage;
    const response = await postGraphQL<{
      known: { headline: string; related: { url: string }[] | null } | null;
      unknown: { headline: string; related: { url: string }[] | null } | null;
    }>(
      gateway.url,
      `query Mixed($url: String!, $known: ID!, $unknown: ID!) {
        known: article(url: $url) { headline related(experienceId: $known) { url } }
        unknown: article(url: $url) { headline related(experienceId: $unknown) { url } }
      }`,
      { url, known: experience('similar').id, unknown: UNKNOWN_EXPERIENCE },
    );

    expect(response.status).toBe(200);
    expect(response.data?.known?.headline).toBe(headlineOf(url));
    expect(response.data?.known?.related?.length).toBeGreaterThan(0);
    // `related` is nullable: its error nulls only itself, and the article's CMS fields survive.
    expect(response.data?.unknown).toEqual({ headline: headlineOf(url), related: null });
    expect(response.errors).toHaveLength(1);
    expect(response.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/experience/i),
      path: ['unknown', 'related'],
      extensions: expect.objectContaining({
        code: 'NOT_FOUND',
        serviceName: ANALYTICS_SUBGRAPH_NAME,
        upstream: expect.objectContaining({ service: 'recommender', status: 404 }),
      }),
    });
    expect((await upstreamStats()).render).toEqual({ count: 2, distinct: 2 });
  });

  it('keeps the whole front page when every slot loses its related list', async () => {
    const response = await postGraphQL<{ frontPage: { url: string; related: unknown }[] }>(
      gateway.url,
      `query FrontPage($experienceId: ID!) { frontPage { url related(experienceId: $experienceId) { url } } }`,
      { experienceId: UNKNOWN_EXPERIENCE },
    );

    // `related` is nullable, so each failure stays at its own path instead of nulling `frontPage` and `data`.
    expect(response.data?.frontPage.map((article) => article.related)).toEqual(cms.data.frontPage.map(() => null));
    expect(response.data?.frontPage.map((article) => article.url)).toEqual(cms.data.frontPage);
    const errors = response.errors ?? [];
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors.map((e) => e.extensions?.code))).toEqual(new Set(['NOT_FOUND']));
    for (const error of errors) expect(error.path).toEqual(['frontPage', expect.any(Number), 'related']);
    expect((await upstreamStats()).render).toEqual({ count: DISTINCT_FRONT_PAGE_ARTICLES, distinct: DISTINCT_FRONT_PAGE_ARTICLES });
  });
});

describe('a front page whose render.json fails for some articles', () => {
  it('keeps every other article and its related list; each failed one is null with an error at its own path', async () => {
    // An experience no other test here asks, so no answer of an earlier test can stand in for a failed call.
    const trendy = experience('trendy');
    const distinctUrls = [...new Set(cms.data.frontPage)];
    const failing = new Set([distinctUrls[2], distinctUrls[17], distinctUrls[30]]);
    proxy.failWhen((query) => failing.has(query.get('canonical_url') ?? ''));

    const response = await postGraphQL<{
      frontPage: { url: string; headline: string; related: { url: string; position: number }[] | null }[];
    }>(
      gateway.url,
      `query FrontPage($experienceId: ID!) { frontPage { url headline related(experienceId: $experienceId) { url position } } }`,
      { experienceId: trendy.id },
    );

    // `frontPage: [Article!]!` in the CMS is non-null all the way: had `related` been non-null too, one failure would null `data`.
    expect(response.status).toBe(200);
    const frontPage = response.data?.frontPage ?? [];
    expect(frontPage.map((slot) => slot.url)).toEqual(cms.data.frontPage);
    expect(frontPage.map((slot) => slot.headline)).toEqual(cms.data.frontPage.map(headlineOf));
    const failedSlots = cms.data.frontPage.flatMap((url, slot) => (failing.has(url) ? [slot] : []));
    // distinctUrls[2] is on the page twice (slots 2 and 37: the page repeats its first 15 stories).
    expect(failedSlots).toEqual([2, 17, 30, 37]);
    for (const [slot, article] of frontPage.entries()) {
      if (failedSlots.includes(slot)) {
        expect(article.related).toBeNull();
      } else {
        expect(article.related?.length).toBeGreaterThan(0);
        expect(article.related?.map((r) => r.position)).toEqual(article.related?.map((_, i) => i + 1));
      }
    }
    const errors = response.errors ?? [];
    expect(errors.map((error) => error.path)).toEqual(failedSlots.map((slot) => ['frontPage', slot, 'related']));
    for (const error of errors) {
      expect(error.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        serviceName: ANALYTICS_SUBGRAPH_NAME,
        upstream: { service: 'recommender', status: 503 },
      });
    }
    // Every failing key was asked (and failed at the proxy); every other distinct key reached the emulator once.
    expect(new Set(proxy.failed.map((query) => query.get('canonical_url')))).toEqual(failing);
    expect((await upstreamStats()).render).toEqual({
      count: distinctUrls.length - failing.size,
      distinct: distinctUrls.length - failing.size,
    });
  });
});

describe('cache hints through the gateway', () => {
  it("lets the router see our hints: the gateway's cache-control follows the subgraph's header", async () => {
    const mostRead = experience('mostRead');
    const RECOMMENDATIONS = `query ($experienceId: ID!, $domain: String, $clientId: ID) {
      recommendations(experienceId: $experienceId, domain: $domain, clientId: $clientId) { url }
    }`;
    const shared = await postGraphQL(gateway.url, RECOMMENDATIONS, { experienceId: mostRead.id, domain: DOMAIN });
    const personal = await postGraphQL(gateway.url, RECOMMENDATIONS, { experienceId: mostRead.id, domain: DOMAIN, clientId: 'reader-a' });
    expect([shared.errors, personal.errors]).toEqual([undefined, undefined]);
    // The subgraph runs with the default RENDER_CACHE_TTL_SECONDS (60).
    expect(shared.cacheControl).toBe('max-age=60, public');
    expect(personal.cacheControl).toBe('max-age=60, private');
  });

  it('is no-store once the CMS subgraph, which gives no hints, takes part', async () => {
    const response = await postGraphQL(gateway.url, `{ frontPage { url } }`);
    expect(response.errors).toBeUndefined();
    expect(response.cacheControl).toBe('no-store');
  });
});

describe('the reporting token across operations', () => {
  it('signs in once for several dashboard operations, concurrent ones included', async () => {
    const TOP_ARTICLES = `
      query TopArticles($limit: Int!) {
        dashboard(query: { dates: { last: { number: 30, unit: DAY } }, groupBy: [URL], metrics: [PAGE_VIEWS_TOTAL], limit: $limit }) {
          total
          rows { total article { url headline } }
        }
      }`;
    const first = await Promise.all([1, 2, 3].map((limit) => postGraphQL<unknown>(gateway.url, TOP_ARTICLES, { limit })));
    const later = await postGraphQL<{ dashboard: { rows: { article: { url: string; headline: string } | null }[] }[] }>(
      gateway.url,
      TOP_ARTICLES,
      { limit: 5 },
    );

    expect([...first, later].map((r) => r.errors)).toEqual([undefined, undefined, undefined, undefined]);
    const rows = later.data?.dashboard[0]?.rows ?? [];
    expect(rows).toHaveLength(5);
    // Grouped by URL, each row's article joins the CMS for its headline.
    const articles = rows.map((row) => row.article);
    expect(articles).not.toContain(null);
    expect(articles.map((a) => a?.headline)).toEqual(articles.map((a) => a && headlineOf(a.url)));

    const stats = await upstreamStats();
    expect(stats.signin).toEqual({ count: 1, distinct: 1 });
    expect(stats.dashboard.count).toBe(4);
  });
});
