/**
 * Stale beats an error, against the realistic emulator: numbers past their
 * TTL are served with their fetchedAt while the refresh waits for its slot,
 * and their cache hint says they are not fresh (max-age 0: the response
 * cache never stores them). Both the tables and the hints run on one injected clock.
 */
import { testConfig } from '../support/config';
import { upstreamOptions } from '../support/upstreamOptions';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/config';
import { Secret } from '../../src/redaction/secret';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import type { BuiltServer } from '../../src/web/server';
import { buildTestServer } from '../support/services';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import { startSmallEmulator } from '../support/subgraphHttp';
import { FakeClock } from './support/tablesFakes';

let emulator: RunningEmulator;
let upstreams: Upstreams;
let server: BuiltServer;
const clock = new FakeClock(Date.now());
const sent: DashboardQueryBody[] = [];

beforeAll(async () => {
  emulator = await startSmallEmulator({ profile: 'realistic', rates: { reportingPerMinute: 600 } });
  upstreams = createUpstreams(
    upstreamOptions({
      reportingBaseUrl: emulator.url,
      recommenderUrl: emulator.url,
      email: DEMO_API_USER.email,
      password: new Secret(DEMO_API_USER.password),
      timeoutMs: 10_000,
      logger: silentLogger,
    }),
  );
  const reporting = {
    query: (body: DashboardQueryBody, grant?: SlotGrant) => (sent.push(body), upstreams.reporting.query(body, grant)),
    budget: upstreams.reporting.budget,
  };
  // The response cache runs on the real clock: off, so the second ask reaches the tables on the fake one.
  const config = testConfig({
    renderMaxConcurrency: 4,
    cache: DEFAULT_CACHE_TTLS,
    analytics: DEFAULT_ANALYTICS_CONFIG,
    responseCacheEnabled: false,
  });
  server = buildTestServer(config, { dashboard: reporting, recommender: upstreams.recommender, logger: silentLogger, clock });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  await upstreams?.close();
  await emulator?.close();
});

async function ask(url: string): Promise<{ fetchedAt?: string; pageViews?: number; cacheControl?: string }> {
  const response = await server.apollo.executeOperation<{ _entities: { analytics: { fetchedAt: string; pageViews: number } }[] }>(
    {
      query: `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { fetchedAt pageViews } } } }`,
      variables: { reps: [{ __typename: 'Article', url }] },
    },
    // The context keeps its loaders on its prototype (built when first read): its clock is replaced on it, not on a copy.
    { contextValue: Object.assign(server.createContext(), { now: () => clock.now() }) },
  );
  if (response.body.kind !== 'single') throw new Error('expected a single result');
  expect(response.body.singleResult.errors).toBeUndefined();
  return { ...response.body.singleResult.data?._entities[0]?.analytics, cacheControl: response.http.headers.get('cache-control') };
}

it('serves numbers past the TTL with their fetchedAt and max-age 0, while one refresh is sent', async () => {
  const url = emulator.store.articles[0].url;
  const fresh = await ask(url);
  expect(fresh.cacheControl).toBe(`max-age=${DEFAULT_CACHE_TTLS.dashboardTtlSeconds}, public`);
  expect(sent).toHaveLength(1);

  // fetchedAt is the upstream path's (real) clock, a few real seconds past the fake start: 30 s more is past the TTL on both.
  await clock.advance((DEFAULT_CACHE_TTLS.dashboardTtlSeconds + 30) * 1000);
  const stale = await ask(url);
  expect(stale).toMatchObject({ fetchedAt: fresh.fetchedAt, pageViews: fresh.pageViews });
  expect(stale.cacheControl).toBe('no-store');
  // The refresh by demand the stale ask asked for: one query, at the slot the governor grants.
  await clock.advance(0);
  expect(sent).toHaveLength(2);
});
