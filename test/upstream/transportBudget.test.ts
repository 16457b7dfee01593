/**
 * Over real HTTP, as `npm start` wires the subgraph: every HTTP attempt takes
 * its own slot of the budget (counted by the emulator), and an empty 200 body
 * from the dashboard is UPSTREAM_METRIC_UNAVAILABLE after exactly one request.
 */
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { Secret } from '../../src/redaction/secret';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { createUpstreams } from '../../src/upstream/upstreams';
import { upstreamOptions } from '../support/upstreamOptions';
import { sendJson, useFakeUpstream } from '../support/fakeUpstream';
import { postGraphQL } from '../support/federationGateway';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../support/subgraph';
import {
  addFault,
  clearFaults,
  PASS_THROUGH,
  readStats,
  resetStats,
  startSmallEmulator,
  startSubgraph,
  type RunningSubgraph,
} from '../support/subgraphHttp';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

const DASHBOARD = `query D($query: DashboardQueryInput!) { dashboard(query: $query) { metric total } }`;
const lastDays = (number: number, metrics = ['PAGE_VIEWS_TOTAL']) => ({ dates: { last: { number, unit: 'DAY' } }, metrics });
type Dashboard = { dashboard: { metric: string; total: number }[] | null };

const governorAt = (reportingPerMinute: number) => ({
  reportingPerMinute,
  signinPerMinute: 20,
  renderPerMinute: 6_000,
  queueTimeoutMs: 2_000,
});
const typeOf = (event: UpstreamEvent): string => event.type;

describe('every dashboard attempt is governed (emulator answering 502)', () => {
  let emulator: RunningEmulator;
  const opened: RunningSubgraph[] = [];
  beforeAll(async () => {
    emulator = await startSmallEmulator();
  });
  afterAll(async () => {
    await Promise.all(opened.map((subgraph) => subgraph.close()));
    await emulator?.close();
  });
  beforeEach(async () => {
    await clearFaults(emulator);
    await resetStats(emulator);
  });

  async function subgraphWithBudget(reportingPerMinute: number, events: UpstreamEvent[]): Promise<RunningSubgraph> {
    const subgraph = await startSubgraph(emulator, {
      protection: { ...PASS_THROUGH, governor: governorAt(reportingPerMinute) },
      observer: recordEvents(events),
    });
    opened.push(subgraph);
    // Signed in before the fault, so the counts below are dashboard requests only.
    await subgraph.upstreams.tokens.getToken();
    return subgraph;
  }

  test('budget 1/min: one operation sends exactly one dashboard request and gets the 502 as UPSTREAM_UNAVAILABLE', async () => {
    const events: UpstreamEvent[] = [];
    const subgraph = await subgraphWithBudget(1, events);
    await addFault(emulator, { target: 'dashboard', status: 502 });

    const response = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: lastDays(7) });

    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(response.errors?.[0].extensions?.upstream).toMatchObject({ status: 502 });
    expect((await readStats(emulator)).dashboard.count).toBe(1);
  });

  test('budget 3/min: the first try and both retries are sent, one slot each, and the governor counts 3 grants', async () => {
    const events: UpstreamEvent[] = [];
    const subgraph = await subgraphWithBudget(3, events);
    await addFault(emulator, { target: 'dashboard', status: 502 });

    const response = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: lastDays(6) });

    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect((await readStats(emulator)).dashboard.count).toBe(3);
    const grants = events.filter((event) => typeOf(event) === 'governor_granted' && 'rate' in event && event.rate === 'reporting');
    expect(grants).toHaveLength(3);
  });
});

describe('an empty 200 body from the dashboard', () => {
  const upstream = useFakeUpstream();
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function subgraphOverFake(): Promise<string> {
    const upstreams = createUpstreams(
      upstreamOptions({
        reportingBaseUrl: upstream.url,
        recommenderUrl: upstream.url,
        email: 'api@demo.example',
        password: new Secret('demo-api-password'),
        timeoutMs: 2_000,
        logger: silentLogger,
        protection: { breaker: { cooldownSeconds: 60, failureThreshold: 1 } },
      }),
    );
    const server = buildTestServer(testConfig({ production: true, renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS }), {
      dashboard: upstreams.reporting,
      recommender: upstreams.recommender,
      logger: silentLogger,
    });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    close = async () => {
      await server.stop();
      await upstreams.close();
    };
    return `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;
  }

  test('is UPSTREAM_METRIC_UNAVAILABLE naming the metrics, after exactly one request; not cached, not an outage', async () => {
    upstream.handle((request, response) => {
      if (request.path === '/api/user/signin') sendJson(response, 200, { token: 'token-1' });
      else response.writeHead(200, { 'content-type': 'application/json' }).end();
    });
    const graphqlUrl = await subgraphOverFake();

    const first = await postGraphQL<Dashboard>(graphqlUrl, DASHBOARD, { query: lastDays(7, ['REVENUE_TOTAL', 'CPM']) });
    const dashboardRequests = () => upstream.requests.filter((request) => request.path === '/api/dashboard/query').length;
    expect(dashboardRequests()).toBe(1);
    expect(first.errors).toHaveLength(1);
    expect(first.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_METRIC_UNAVAILABLE', metrics: ['REVENUE_TOTAL', 'CPM'] });
    expect(first.errors?.[0].message).toContain('REVENUE_TOTAL, CPM');

    // Asked again: not served from a cache, and the breaker (opening after 1 failure here) did not count it.
    const second = await postGraphQL<Dashboard>(graphqlUrl, DASHBOARD, { query: lastDays(7, ['REVENUE_TOTAL', 'CPM']) });
    expect(second.errors?.[0].extensions?.code).toBe('UPSTREAM_METRIC_UNAVAILABLE');
    expect(dashboardRequests()).toBe(2);
  });
});
