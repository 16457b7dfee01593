/**
 * Article analytics behind a real router: @apollo/gateway over our subgraph
 * and the CMS test subgraph, the emulator as the upstream, every hop real
 * HTTP. The CMS owns the front page and the headlines; our subgraph adds the
 * numbers. Asserts the joined numbers against direct dashboard queries and
 * the exact number of dashboard calls the emulator received. Each test asks
 * over its own window, so a shared answer cache could not turn one test's
 * calls into another's hits.
 */
import { parse } from 'graphql';
import type { RunningEmulator } from '../../emulator';
import { directArticleMetrics } from '../support/analytics';
import { apiToken, startTestEmulator } from '../support/emulator';
import { startAnalyticsSubgraph, type RunningAnalyticsSubgraph } from '../support/federationAnalytics';
import { buildCmsData, CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS, startCmsSubgraph, type RunningCmsSubgraph } from '../support/federationCms';
import { postGraphQL, startGateway, type RunningGateway } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import { addFault, clearFaults, readStats, resetStats } from '../support/subgraphHttp';

const DOMAIN = 'dailyglobe.example';
const FRONT_PAGE_SIZE = 30;
const DISTINCT_FRONT_PAGE_ARTICLES = 24;

let emulator: RunningEmulator;
let analytics: RunningAnalyticsSubgraph;
let cms: RunningCmsSubgraph;
let gateway: RunningGateway;
let token: string;

beforeAll(async () => {
  emulator = await startTestEmulator({ scale: 0.05 });
  analytics = await startAnalyticsSubgraph(emulator.url);
  cms = await startCmsSubgraph(
    buildCmsData(emulator.store.articles, {
      domain: DOMAIN,
      distinctFrontPageArticles: DISTINCT_FRONT_PAGE_ARTICLES,
      frontPageSize: FRONT_PAGE_SIZE,
      clientIds: emulator.store.clients.values.slice(0, 1),
      userCount: 1,
    }),
  );
  const supergraph = composeSupergraph([
    { name: ANALYTICS_SUBGRAPH_NAME, url: analytics.url, typeDefs: loadAnalyticsTypeDefs() },
    { name: CMS_SUBGRAPH_NAME, url: cms.url, typeDefs: parse(CMS_TYPE_DEFS) },
  ]);
  gateway = await startGateway(supergraph.supergraphSdl);
  token = await apiToken(emulator);
}, 20000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([cms?.close(), analytics?.close()]);
  await emulator?.close();
});

beforeEach(async () => {
  await resetStats(emulator);
  cms.resetCounters();
});

afterEach(async () => {
  await clearFaults(emulator);
});

function headlineOf(url: string): string | undefined {
  return cms.data.articles.find((article) => article.url === url)?.headline;
}

interface Numbers {
  from: string;
  to: string;
  pageViews: number;
  uniqueUsers?: number;
  averageScroll?: number;
}

describe('a front page with analytics through the gateway', () => {
  const FRONT_PAGE = `query FrontPage {
    frontPage {
      url
      headline
      week: analytics(window: { last: { number: 6, unit: DAY } }) { from to pageViews }
      month: analytics(window: { last: { number: 29, unit: DAY } }) { from to pageViews uniqueUsers averageScroll }
    }
  }`;

  it('costs one dashboard query per window for the whole page, each article equal to a direct query', async () => {
    const response = await postGraphQL<{ frontPage: { url: string; headline: string; week: Numbers; month: Numbers }[] }>(
      gateway.url,
      FRONT_PAGE,
    );

    expect(response.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(2);
    const frontPage = response.data?.frontPage ?? [];
    expect(frontPage.map((slot) => slot.url)).toEqual(cms.data.frontPage);
    expect(frontPage.map((slot) => slot.headline)).toEqual(cms.data.frontPage.map(headlineOf));
    // The router sends the page's articles to our subgraph in one `_entities` fetch.
    expect(cms.counters).toMatchObject({ frontPage: 1, operations: 1 });
    for (const slot of frontPage.slice(0, DISTINCT_FRONT_PAGE_ARTICLES)) {
      const week = await directArticleMetrics(emulator, token, slot.url, slot.week, ['pageViewsTotal']);
      const month = await directArticleMetrics(emulator, token, slot.url, slot.month, ['pageViewsTotal', 'uniqueUsers', 'averageScroll']);
      expect(slot.week.pageViews).toBe(week.pageViewsTotal);
      expect(slot.month).toMatchObject({
        pageViews: month.pageViewsTotal,
        uniqueUsers: month.uniqueUsers,
        averageScroll: month.averageScroll,
      });
    }
    expect(new Set(frontPage.map((slot) => slot.month.to)).size).toBe(1);
    expect(frontPage.some((slot) => slot.month.pageViews > 0)).toBe(true);
  });

  it('nulls only the analytics when the reporting API fails; the CMS headlines survive', async () => {
    await addFault(emulator, { target: 'dashboard', status: 503 });
    const response = await postGraphQL<{ frontPage: { headline: string; analytics: Numbers | null }[] }>(
      gateway.url,
      `{ frontPage { headline analytics(window: { last: { number: 5, unit: DAY } }) { pageViews } } }`,
    );

    const frontPage = response.data?.frontPage ?? [];
    expect(frontPage.map((slot) => slot.headline)).toEqual(cms.data.frontPage.map(headlineOf));
    expect(frontPage.every((slot) => slot.analytics === null)).toBe(true);
    expect(new Set(response.errors?.map((error) => error.extensions?.code))).toEqual(new Set(['UPSTREAM_UNAVAILABLE']));
  });
});

describe('topArticles joined with CMS headlines', () => {
  it('costs one dashboard query; the router resolves each ranked article in the CMS', async () => {
    const response = await postGraphQL<{ topArticles: { rank: number; value: number; article: { url: string; headline: string } }[] }>(
      gateway.url,
      `query MostRead($domain: String) {
        topArticles(domain: $domain, limit: 5, window: { last: { number: 3, unit: DAY } }) { rank value article { url headline } }
      }`,
      { domain: DOMAIN },
    );

    expect(response.errors).toBeUndefined();
    expect((await readStats(emulator)).dashboard.count).toBe(1);
    const ranking = response.data?.topArticles ?? [];
    expect(ranking.map((entry) => entry.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(ranking.map((entry) => entry.article.headline)).toEqual(ranking.map((entry) => headlineOf(entry.article.url)));
    expect(ranking.every((entry) => entry.article.url.includes(DOMAIN))).toBe(true);
    expect(cms.counters).toMatchObject({ entityOperations: 1, articleReferences: 5 });
  });
});
