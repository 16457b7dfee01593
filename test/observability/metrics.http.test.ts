/**
 * GET /metrics after real operations against the emulator, parsed with a
 * Prometheus text-format parser: each counter moves by exactly what the
 * operations did upstream.
 */
import type { RunningEmulator } from '../../emulator';
import { Metrics } from '../../src/observability/metrics/metrics';
import { postGraphQL } from '../support/federationGateway';
import { countOf, familyNames, scrape, valueOf } from '../support/metricsText';
import {
  PASS_THROUGH,
  addFault,
  advanceClock,
  clearFaults,
  startSmallEmulator,
  startSubgraph,
  type RunningSubgraph,
} from '../support/subgraphHttp';
import { METRICS_DEFAULTS } from '../../src/config';

const RENDER = { service: 'recommender', endpoint: '/recommenderexperience/render.json' };
const SIGN_IN = { service: 'reporting', endpoint: '/api/user/signin' };
const DASHBOARD = { service: 'reporting', endpoint: '/api/dashboard/query' };

const FRONT = 'query Front($id: ID!) { recommendations(experienceId: $id, domain: "dailyglobe.example") { url } }';
const UNKNOWN = 'query Unknown { recommendations(experienceId: "IL_doesNotExist0000000000", domain: "dailyglobe.example") { url } }';
const TODAY = 'query Today { dashboard(query: { dates: { last: { number: 1, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;
let metricsUrl: string;
const metrics = new Metrics(METRICS_DEFAULTS);

beforeAll(async () => {
  emulator = await startSmallEmulator();
  // Every call reaches the upstream here, so upstream counters move by what each operation asked; the cache has its own test.
  subgraph = await startSubgraph(emulator, { timeoutMs: 10_000, metrics, protection: PASS_THROUGH });
  metricsUrl = `${subgraph.baseUrl}/metrics`;
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

afterEach(async () => {
  await clearFaults(emulator);
});

function experienceId(): string {
  const found = emulator.demo.experiences.find((candidate) => candidate.rankingProfile === 'mostRead');
  if (!found) throw new Error('no seeded mostRead experience');
  return found.id;
}

/** Observations of: Front's duration, render.json 2xx durations, loader batches, operations' upstream calls. */
function histogramCounts(): Promise<number[]> {
  return Promise.all([
    countOf(metrics.registry, 'subgraph_graphql_operation_duration_seconds', {
      operation_name: 'Front',
      operation_type: 'query',
      outcome: 'ok',
    }),
    countOf(metrics.registry, 'subgraph_upstream_request_duration_seconds', { ...RENDER, status_class: '2xx' }),
    countOf(metrics.registry, 'subgraph_dataloader_batch_size', { loader: 'recommendations' }),
    countOf(metrics.registry, 'subgraph_graphql_operation_upstream_calls', { operation_type: 'query' }),
  ]);
}

describe('GET /metrics', () => {
  it('counts operations, upstream calls, sign-ins and batches by exactly what happened', async () => {
    const before = await scrape(metricsUrl);
    const countsBefore = await histogramCounts();
    expect((await postGraphQL(subgraph.graphqlUrl, FRONT, { id: experienceId() })).errors).toBeUndefined();
    expect((await postGraphQL(subgraph.graphqlUrl, FRONT, { id: experienceId() })).errors).toBeUndefined();
    expect((await postGraphQL(subgraph.graphqlUrl, UNKNOWN)).errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
    expect((await postGraphQL(subgraph.graphqlUrl, TODAY)).errors).toBeUndefined();
    const after = await scrape(metricsUrl);
    const countsAfter = await histogramCounts();

    const moved = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    const ok = { operation_type: 'query', outcome: 'ok' };
    expect(moved('subgraph_graphql_operations_total', { operation_name: 'Front', ...ok })).toBe(2);
    expect(moved('subgraph_graphql_operations_total', { operation_name: 'Today', ...ok })).toBe(1);
    expect(moved('subgraph_graphql_operations_total', { operation_name: 'Unknown', operation_type: 'query', outcome: 'NOT_FOUND' })).toBe(
      1,
    );
    expect(moved('subgraph_upstream_requests_total', { ...RENDER, status_class: '2xx' })).toBe(2);
    expect(moved('subgraph_upstream_requests_total', { ...RENDER, status_class: '4xx' })).toBe(1);
    expect(moved('subgraph_upstream_requests_total', { ...DASHBOARD, status_class: '2xx' })).toBe(1);
    expect(moved('subgraph_upstream_requests_total', { ...SIGN_IN, status_class: '2xx' })).toBe(1);
    expect(moved('subgraph_upstream_signins_total', { outcome: 'ok' })).toBe(1);
    expect(countsAfter.map((count, index) => count - countsBefore[index])).toEqual([2, 2, 3, 4]);
  });

  it('counts the shared cache: a miss, then a hit for the same parameters from another operation', async () => {
    const cachedMetrics = new Metrics(METRICS_DEFAULTS);
    const cached = await startSubgraph(emulator, { timeoutMs: 10_000, metrics: cachedMetrics });
    try {
      const cachedUrl = `${cached.baseUrl}/metrics`;
      const before = await scrape(cachedUrl);
      const query = 'query Sports($id: ID!) { recommendations(experienceId: $id, domain: "sportsdesk.example") { url } }';
      expect((await postGraphQL(cached.graphqlUrl, query, { id: experienceId() })).errors).toBeUndefined();
      expect((await postGraphQL(cached.graphqlUrl, query, { id: experienceId() })).errors).toBeUndefined();
      const after = await scrape(cachedUrl);

      const moved = (result: string) =>
        valueOf(after, 'subgraph_upstream_cache_events_total', { endpoint: RENDER.endpoint, result }) -
        valueOf(before, 'subgraph_upstream_cache_events_total', { endpoint: RENDER.endpoint, result });
      expect([moved('miss'), moved('hit')]).toEqual([1, 1]);
      expect(
        valueOf(after, 'subgraph_upstream_requests_total', { ...RENDER, status_class: '2xx' }) -
          valueOf(before, 'subgraph_upstream_requests_total', { ...RENDER, status_class: '2xx' }),
      ).toBe(1);
    } finally {
      await cached.close();
    }
  });

  it('counts 429s and the Retry-After the upstream asked for', async () => {
    await addFault(emulator, { target: 'render', status: 429, rate: 1 });
    const before = await scrape(metricsUrl);
    const retryAftersBefore = await countOf(metrics.registry, 'subgraph_upstream_retry_after_seconds', { service: 'recommender' });
    const result = await postGraphQL(subgraph.graphqlUrl, FRONT, { id: experienceId() });
    const after = await scrape(metricsUrl);

    // The governor retries a 429 once when its Retry-After fits the call's deadline: two 429s, each with its Retry-After.
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
    expect(
      valueOf(after, 'subgraph_upstream_rate_limited_total', RENDER) - valueOf(before, 'subgraph_upstream_rate_limited_total', RENDER),
    ).toBe(2);
    expect(await countOf(metrics.registry, 'subgraph_upstream_retry_after_seconds', { service: 'recommender' })).toBe(
      retryAftersBefore + 2,
    );
    expect(
      valueOf(after, 'subgraph_graphql_operations_total', { operation_name: 'Front', outcome: 'UPSTREAM_RATE_LIMITED' }) -
        valueOf(before, 'subgraph_graphql_operations_total', { operation_name: 'Front', outcome: 'UPSTREAM_RATE_LIMITED' }),
    ).toBe(1);
  });

  it('counts a token renewal after the upstream rejects an expired token', async () => {
    expect((await postGraphQL(subgraph.graphqlUrl, TODAY)).errors).toBeUndefined();
    const before = await scrape(metricsUrl);
    await advanceClock(emulator, 15 * 24 * 3600);
    expect((await postGraphQL(subgraph.graphqlUrl, TODAY)).errors).toBeUndefined();
    const after = await scrape(metricsUrl);

    const rejected = { reason: 'rejected' };
    expect(
      valueOf(after, 'subgraph_upstream_token_renewals_total', rejected) -
        valueOf(before, 'subgraph_upstream_token_renewals_total', rejected),
    ).toBe(1);
    expect(
      valueOf(after, 'subgraph_upstream_signins_total', { outcome: 'ok' }) -
        valueOf(before, 'subgraph_upstream_signins_total', { outcome: 'ok' }),
    ).toBe(1);
    expect(
      valueOf(after, 'subgraph_upstream_requests_total', { ...DASHBOARD, status_class: '4xx' }) -
        valueOf(before, 'subgraph_upstream_requests_total', { ...DASHBOARD, status_class: '4xx' }),
    ).toBe(1);
  });

  it('serves the process and event-loop metrics, and never a URL, reader id or query text as a label', async () => {
    await postGraphQL(subgraph.graphqlUrl, 'query Marked { recommendations(experienceId: "IL_x", clientId: "reader-marker-77") { url } }');
    const families = await scrape(metricsUrl);
    expect(familyNames(families)).toEqual(
      expect.arrayContaining([
        'subgraph_process_cpu_user_seconds_total',
        'subgraph_nodejs_eventloop_lag_seconds',
        'subgraph_process_resident_memory_bytes',
      ]),
    );
    const labelValues = families.flatMap((family) => family.metrics.flatMap((sample) => Object.values(sample.labels ?? {})));
    expect(labelValues.filter((value) => /reader-marker|https?:|\?|\{/.test(value))).toEqual([]);
  });

  it('answers other methods with 405 and a JSON body', async () => {
    const response = await fetch(metricsUrl, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({ error: 'Method not allowed: /metrics answers GET' });
  });
});
