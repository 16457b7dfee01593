/**
 * Two callers of different sites behind Hive Gateway with its response cache
 * (test/support/hiveGateway.ts): the gateway passes each caller's bearer
 * token on to the subgraph (CALLER_AUTH=jwt, JWT_SITES_CLAIM), which picks
 * the caller's rows. Whatever the gateway's session (none, or the example's:
 * the Authorization header), neither caller ever gets the other's rows: the
 * reporting fields' @cacheControl in the supergraph has maxAge 0, so the
 * gateway stores none of them (its `responseCache` verdict says so), and the
 * subgraph sends them `private` (test/security/cacheScope.http.test.ts).
 */
import type { RunningEmulator } from '../../emulator';
import { postGraphQL, type GraphQLResponse } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import {
  loadHiveExample,
  PLACEHOLDER_EXAMPLE_ENV,
  startHiveGateway,
  type HiveGatewayOptions,
  type RunningHiveGateway,
} from '../support/hiveGateway';
import { startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import { AUDIENCE, callerAuth, ISSUER, serveJwks, signingKey, signToken, type JwksServer, type SigningKey } from '../security/support';

const { gatewayConfig } = loadHiveExample(PLACEHOLDER_EXAMPLE_ENV);

const GLOBE = 'dailyglobe.example';
const METRO = 'metrotimes.example';

let emulator: RunningEmulator;
let jwks: JwksServer;
let key: SigningKey;
let subgraph: RunningSubgraph;
let supergraphSdl: string;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
  subgraph = await startSubgraph(emulator, {
    config: {
      callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' }),
      responseCacheEnabled: true,
    },
  });
  supergraphSdl = composeSupergraph([
    { name: ANALYTICS_SUBGRAPH_NAME, url: subgraph.graphqlUrl, typeDefs: loadAnalyticsTypeDefs() },
  ]).supergraphSdl;
});

afterAll(async () => {
  await subgraph?.close();
  await jwks?.close();
  await emulator?.close();
});

/** The caller's bearer token goes on to the subgraph, which verifies it and reads its sites. */
const PASS_THE_TOKEN: HiveGatewayOptions['propagateHeaders'] = {
  fromClientToSubgraphs: ({ request }) => {
    const authorization = request.headers.get('authorization');
    return authorization === null ? {} : { authorization };
  },
};

const BY_DOMAIN = `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [DOMAIN] }) {
  rows { dimensions { value } }
} }`;
const RANKING = `{ topArticles(limit: 5) { article { url } } }`;

type Answer = GraphQLResponse<{
  dashboard?: Array<{ rows: Array<{ dimensions: Array<{ value: string }> }> }>;
  topArticles?: Array<{ article: { url: string } }>;
}>;

async function askAs(hive: RunningHiveGateway, sites: string[], query: string): Promise<Answer> {
  const token = await signToken(key, { claims: { scope: 'reporting:read', sites } });
  const answer: Answer = await postGraphQL(hive.url, query, {}, { authorization: `Bearer ${token}` });
  expect(answer.errors).toBeUndefined();
  // The gateway's verdict (includeExtensionMetadata): never served from its cache, never stored.
  expect(answer.extensions?.responseCache).toEqual({ hit: false, didCache: false });
  return answer;
}

/** Each caller's dashboard rows and ranking's sites, asked in turns so that a shared cache entry would be served. */
async function expectOwnRowsOnly(hive: RunningHiveGateway): Promise<void> {
  for (let round = 0; round < 2; round += 1) {
    for (const site of [GLOBE, METRO]) {
      const dashboard = await askAs(hive, [site], BY_DOMAIN);
      expect(dashboard.data?.dashboard?.[0].rows.map((row) => row.dimensions[0].value)).toEqual([site]);
      const ranking = await askAs(hive, [site], RANKING);
      const hosts = new Set(ranking.data?.topArticles?.map((row) => new URL(row.article.url).hostname));
      expect([...hosts]).toEqual([site]);
    }
  }
}

it('never serves one caller’s rows to another from a response cache without sessions', async () => {
  const hive = await startHiveGateway(supergraphSdl, {
    responseCaching: { session: () => null, ttl: gatewayConfig.responseCaching.ttl, includeExtensionMetadata: true },
    propagateHeaders: PASS_THE_TOKEN,
  });
  try {
    await expectOwnRowsOnly(hive);
  } finally {
    await hive.close();
  }
});

it('never serves one caller’s rows to another with the example’s sessions (the Authorization header)', async () => {
  const hive = await startHiveGateway(supergraphSdl, {
    responseCaching: { ...gatewayConfig.responseCaching, includeExtensionMetadata: true },
    propagateHeaders: PASS_THE_TOKEN,
  });
  try {
    await expectOwnRowsOnly(hive);
  } finally {
    await hive.close();
  }
});
