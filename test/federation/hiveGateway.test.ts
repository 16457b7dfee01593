/**
 * The subgraph behind Hive Gateway, configured as the shipped example
 * (examples/hive-gateway/gateway.config.ts): its runtime in-process over a
 * supergraph of our subgraph and the test CMS, every hop real HTTP, the
 * emulator as the upstream.
 *
 * Demand control: each documented operation's cost as Hive computes it
 * (`extensions.cost`, or its refusal COST_ESTIMATED_TOO_EXPENSIVE), next to
 * Apollo Router's estimate of the same operation (RouterCostEstimator: the
 * query plan's fetches, each estimated with Apollo's formula). The numbers are
 * the ones docs/routers.md publishes.
 *
 * Response caching: our @cacheControl reaches the gateway through the
 * supergraph, so a PRIVATE answer is never served to another session.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { RunningEmulator } from '../../emulator';
import type { Experience } from '../../emulator/store';
import { CostEstimator, RouterCostEstimator } from '../support/demandCost';
import { call, startTestEmulator } from '../support/emulator';
import { startAnalyticsSubgraph, type RunningAnalyticsSubgraph } from '../support/federationAnalytics';
import { buildCmsData, CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS, startCmsSubgraph, type RunningCmsSubgraph } from '../support/federationCms';
import { postGraphQL, type GraphQLResponse } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import { startHiveGateway, type RunningHiveGateway, loadHiveExample, PLACEHOLDER_EXAMPLE_ENV } from '../support/hiveGateway';

/** The shipped example (its demand control and response cache are under test here, not its security). */
const { gatewayConfig, HIVE_MAX_COST } = loadHiveExample(PLACEHOLDER_EXAMPLE_ENV);

const DOMAIN = 'dailyglobe.example';
/** Apollo Router's documented starting configuration: `static_estimated: { list_size: 10, max: 1000 }`. */
const APOLLO_LIST_SIZE = 10;
const APOLLO_MAX = 1000;

let emulator: RunningEmulator;
let analytics: RunningAnalyticsSubgraph;
let cms: RunningCmsSubgraph;
let hive: RunningHiveGateway;
let apollo: RouterCostEstimator;
let experience: Experience;

beforeAll(async () => {
  // The default scale has 14 articles on DOMAIN: enough for a front page of 10.
  emulator = await startTestEmulator();
  analytics = await startAnalyticsSubgraph(emulator.url);
  cms = await startCmsSubgraph(
    buildCmsData(emulator.store.articles, {
      domain: DOMAIN,
      // One `_entities` batch of 10 articles: the batch Apollo Router's list_size assumes.
      distinctFrontPageArticles: 10,
      frontPageSize: 10,
      clientIds: emulator.store.clients.values.slice(0, 2),
      userCount: 2,
    }),
  );
  const { supergraphSdl } = composeSupergraph([
    { name: ANALYTICS_SUBGRAPH_NAME, url: analytics.url, typeDefs: loadAnalyticsTypeDefs() },
    { name: CMS_SUBGRAPH_NAME, url: cms.url, typeDefs: parse(CMS_TYPE_DEFS) },
  ]);
  // The example as users copy it, plus what the tests read: the cost and the cache verdict of each answer.
  hive = await startHiveGateway(supergraphSdl, {
    demandControl: { ...gatewayConfig.demandControl, includeExtensionMetadata: true },
    responseCaching: { ...gatewayConfig.responseCaching, includeExtensionMetadata: true },
  });
  apollo = new RouterCostEstimator(supergraphSdl, {
    [ANALYTICS_SUBGRAPH_NAME]: new CostEstimator(buildSubgraphSchema({ typeDefs: loadAnalyticsTypeDefs() }), APOLLO_LIST_SIZE),
    [CMS_SUBGRAPH_NAME]: new CostEstimator(buildSubgraphSchema({ typeDefs: parse(CMS_TYPE_DEFS) }), APOLLO_LIST_SIZE),
  });
  const found = emulator.demo.experiences.find((e) => e.domain === DOMAIN);
  if (!found) throw new Error(`the emulator has no experience for ${DOMAIN}`);
  experience = found;
});

afterAll(async () => {
  await hive?.close();
  await cms?.close();
  await analytics?.close();
  await emulator?.close();
});

async function dashboardQueriesSent(): Promise<number> {
  const stats = await call<{ dashboard: { count: number } }>(emulator, '/__emulator/stats');
  return stats.body.dashboard.count;
}

function costOf(response: GraphQLResponse<unknown>): unknown {
  const refusal = response.errors?.find((e) => e.extensions?.code === 'COST_ESTIMATED_TOO_EXPENSIVE');
  return (refusal?.extensions?.cost ?? response.extensions?.cost) as unknown;
}

const ONE_METRIC = `{ dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [SECTION] }`;
const BY_URL = `{ dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [URL] }`;
const TYPICAL_SELECTION = `metric total rows { key total dimensions { dimension value } } series { time value } fetchedAt`;

interface DocumentedOperation {
  what: string;
  query: () => string;
  /** Apollo Router's estimate (list_size 10), and whether its max of 1000 lets it through. */
  apollo: number;
  /** Hive Gateway's estimate, and whether the example's maxCost of 15,000 lets it through. */
  hive: number;
}

/** docs/routers.md "Costs per operation": change both together. */
const DOCUMENTED: DocumentedOperation[] = [
  { what: 'a dashboard, fewest fields', query: () => `{ dashboard(query: ${ONE_METRIC}) { total } }`, apollo: 602, hive: 9000 },
  {
    what: 'a dashboard with rows, dimensions and series',
    query: () => `{ dashboard(query: ${ONE_METRIC}) { ${TYPICAL_SELECTION} } }`,
    apollo: 602,
    hive: 9000,
  },
  {
    what: 'two dashboards',
    query: () => `{ a: dashboard(query: ${ONE_METRIC}) { total } b: dashboard(query: ${ONE_METRIC}) { total } }`,
    apollo: 1204,
    hive: 18000,
  },
  {
    what: 'a dashboard whose rows join their article',
    query: () => `{ dashboard(query: ${BY_URL}) { total rows { key article { url } } } }`,
    apollo: 2102,
    hive: 10500,
  },
  {
    what: 'analytics of a front page of 10 articles, one window',
    query: () => `{ frontPage { url headline analytics { pageViews uniqueUsers } } }`,
    apollo: 620,
    hive: 9002,
  },
  {
    what: 'analytics of a front page, two windows',
    query: () =>
      `{ frontPage { url week: analytics { pageViews } day: analytics(window: { last: { number: 1, unit: DAY } }) { pageViews } } }`,
    apollo: 1240,
    hive: 18002,
  },
  { what: 'topArticles (limit 10)', query: () => `{ topArticles { rank value article { url } } }`, apollo: 610, hive: 9010 },
  {
    what: 'topArticles beside a dashboard',
    query: () => `{ topArticles { rank } dashboard(query: ${ONE_METRIC}) { total } }`,
    apollo: 1202,
    hive: 18000,
  },
  {
    what: 'recommendations',
    query: () => `{ recommendations(experienceId: "${experience.id}", domain: "${DOMAIN}") { url title } }`,
    apollo: 1,
    hive: 50,
  },
  {
    what: 'recommendations with their CMS headline',
    query: () => `{ recommendations(experienceId: "${experience.id}", domain: "${DOMAIN}") { url title article { headline } } }`,
    apollo: 61,
    hive: 101,
  },
  {
    what: 'related articles of a front page',
    query: () => `{ frontPage { url related(experienceId: "${experience.id}") { url article { url } } } }`,
    apollo: 530,
    hive: 102,
  },
];

describe('demand control: each documented operation on Apollo Router and on Hive Gateway', () => {
  it.each(DOCUMENTED)('$what: Apollo Router $apollo, Hive Gateway $hive', async ({ query, apollo: apolloCost, hive: hiveCost }) => {
    expect(apollo.estimate(query()).total).toBe(apolloCost);

    const before = await dashboardQueriesSent();
    const response = await postGraphQL<unknown>(hive.url, query());
    expect(costOf(response)).toEqual({ estimated: hiveCost, max: HIVE_MAX_COST });
    const refusals = (response.errors ?? []).filter((e) => e.extensions?.code === 'COST_ESTIMATED_TOO_EXPENSIVE');
    if (hiveCost > HIVE_MAX_COST) {
      expect(response.status).toBe(200);
      // One refusal per root field of the refused fetch, and nothing else went wrong.
      expect(refusals.length).toBeGreaterThan(0);
      expect(refusals).toEqual(response.errors);
      // Refused before the fetch that would have spent the reporting budget.
      expect(await dashboardQueriesSent()).toBe(before);
    } else {
      expect(response.errors).toBeUndefined();
    }
  });

  it('agree on the policy: one reporting query passes and two are refused, on each router at its own limit', () => {
    const verdicts = DOCUMENTED.map((op) => ({ what: op.what, apollo: op.apollo <= APOLLO_MAX, hive: op.hive <= HIVE_MAX_COST }));
    // The only disagreement: a join costs 1 per item on both, which is 15 times less of Hive's limit.
    expect(verdicts.filter((v) => v.apollo !== v.hive).map((v) => v.what)).toEqual(['a dashboard whose rows join their article']);
    expect(verdicts.filter((v) => !v.hive).map((v) => v.what)).toEqual([
      'two dashboards',
      'analytics of a front page, two windows',
      'topArticles beside a dashboard',
    ]);
  });
});

interface CacheMetadata {
  hit: boolean;
  didCache?: boolean;
  ttl?: number;
}

async function askHive(query: string, session?: string): Promise<{ response: GraphQLResponse<unknown>; cache: CacheMetadata }> {
  const response = await postGraphQL<unknown>(hive.url, query, {}, session === undefined ? {} : { authorization: `Bearer ${session}` });
  expect(response.errors).toBeUndefined();
  return { response, cache: response.extensions?.responseCache as CacheMetadata };
}

describe('response caching: the cache scope our @cacheControl gives the supergraph', () => {
  it("caches the CMS's front page for the gateway's own TTL, never a day our hint would give the shared Article type", async () => {
    // The CMS has no hint and answers `no-store` (which Hive ignores): the example's `ttl` governs its answer.
    const query = `{ frontPage { url headline } }`;
    const first = await askHive(query);
    expect(first.cache).toEqual({ hit: false, didCache: true, ttl: gatewayConfig.responseCaching.ttl });
    const second = await askHive(query);
    expect(second.cache).toEqual({ hit: true });
    expect(second.response.data).toEqual(first.response.data);
  });

  it("leaves the CMS's readers to the CMS: the shared Reader type carries no hint of ours", async () => {
    const query = `{ users { id reader { clientId } } }`;
    expect((await askHive(query)).cache).toEqual({ hit: false, didCache: true, ttl: gatewayConfig.responseCaching.ttl });
    expect((await askHive(query)).cache).toEqual({ hit: true });
  });

  it('never caches our PRIVATE Reader.recommendations, with or without a session', async () => {
    const query = `{ users { id reader { clientId recommendations(experienceId: "${experience.id}", domain: "${DOMAIN}") { url } } } }`;
    for (const session of [undefined, undefined, 'reader-a', 'reader-a', 'reader-b']) {
      expect((await askHive(query, session)).cache).toEqual({ hit: false, didCache: false });
    }
  });

  it('never serves personalized recommendations (clientId) from the cache, to any session', async () => {
    const clientId = emulator.store.clients.values[0];
    const query = `{ recommendations(experienceId: "${experience.id}", domain: "${DOMAIN}", clientId: "${clientId}") { url } }`;
    for (const session of [undefined, undefined, 'reader-a', 'reader-a', 'reader-b']) {
      expect((await askHive(query, session)).cache).toEqual({ hit: false, didCache: false });
    }
  });
});
