import type { RenderParams } from '../../src/kernel/wire';
import { createLogger } from '../../src/observability/logger';
import { BoundedLabel, OTHER_LABEL } from '../../src/observability/metrics/boundedLabel';
import { Metrics } from '../../src/observability/metrics/metrics';
import { metricsObserver } from '../../src/observability/metricsObserver';
import { countOf } from '../support/metricsText';
import { execute, fakeRecommender, startTestServer } from '../support/subgraph';
import { METRICS_DEFAULTS } from '../../src/config';

describe('BoundedLabel', () => {
  it('keeps the first names, then answers __other__; anonymous and malformed names never take a slot', () => {
    const label = new BoundedLabel(2);
    expect(['A', '', null, 'not a name!', 'B', 'C', 'A'].map((name) => label.valueOf(name))).toEqual([
      'A',
      '__anonymous__',
      '__anonymous__',
      OTHER_LABEL,
      'B',
      OTHER_LABEL,
      'A',
    ]);
  });
});

describe('the upstream metrics observer', () => {
  it("records each caller's slots and refusals under a bounded caller label (raw: ids as OAuth clients spell them), then __other__", async () => {
    const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false, callerLabel: { mode: 'raw' } });
    const observer = metricsObserver(metrics);
    observer.callerSlotsSpent('svc-newsroom.web@clients', 1);
    observer.callerSlotsSpent('svc-newsroom.web@clients', 0.5);
    observer.callerAskRefused('svc-newsroom.web@clients');
    observer.callerSlotsSpent('a caller with "quotes" and spaces', 1);
    for (let index = 0; index < 60; index += 1) observer.callerAskRefused(`client-${index}`);
    const text = await metrics.registry.metrics();
    expect(text).toContain('subgraph_reporting_caller_slots_total{caller="svc-newsroom.web@clients"} 1.5');
    expect(text).toContain('subgraph_reporting_caller_refusals_total{caller="svc-newsroom.web@clients"} 1');
    expect(text).toContain('subgraph_reporting_caller_slots_total{caller="__other__"} 1');
    // 50 distinct ids at most: the first (svc-newsroom.web@clients) and 49 clients, the other 11 as __other__.
    expect(text).toContain('subgraph_reporting_caller_refusals_total{caller="client-48"} 1');
    expect(text).not.toContain('caller="client-49"');
    expect(text).toContain('subgraph_reporting_caller_refusals_total{caller="__other__"} 11');
  });

  it("counts every kind's refusals by reason and slots spent in the budget queue, dashboards too; the tables' analytics series stay as they were", async () => {
    const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
    const observer = metricsObserver(metrics);
    observer.askRefused('dashboard', 'deadline');
    observer.askRefused('dashboard', 'deadline');
    observer.askRefused('dashboard', 'share');
    observer.askRefused('table', 'metric_unavailable');
    observer.slotSpent('dashboard', 3);
    observer.slotSpent('table', 2);
    observer.slotSpent('table', 0);
    const text = await metrics.registry.metrics();
    expect(text).toContain('subgraph_reporting_ask_refusals_total{kind="dashboard",reason="deadline"} 2');
    expect(text).toContain('subgraph_reporting_ask_refusals_total{kind="dashboard",reason="share"} 1');
    expect(text).toContain('subgraph_reporting_ask_refusals_total{kind="table",reason="metric_unavailable"} 1');
    expect(await countOf(metrics.registry, 'subgraph_reporting_asks_per_slot', { kind: 'dashboard' })).toBe(1);
    expect(await countOf(metrics.registry, 'subgraph_reporting_asks_per_slot', { kind: 'table' })).toBe(2);
    expect(text).toContain('subgraph_reporting_asks_per_slot_sum{kind="dashboard"} 3');
    // The tables' own series, unchanged: dashboards are not counted in them.
    expect(text).toContain('subgraph_analytics_refusals_total{reason="metric_unavailable"} 1');
    expect(text).not.toContain('subgraph_analytics_refusals_total{reason="deadline"}');
    expect(await countOf(metrics.registry, 'subgraph_analytics_asks_per_query')).toBe(2);
  });

  it('records status classes, timeouts and Retry-After values without URLs', async () => {
    const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
    const observer = metricsObserver(metrics);
    observer.attemptFinished({ service: 'recommender', endpoint: '/r', durationMs: 12, status: 200 });
    observer.attemptFinished({ service: 'recommender', endpoint: '/r', durationMs: 5, status: 429, retryAfterSeconds: 30 });
    // The 429 itself is the rate-limited event (the governor stage reports it once per attempt answered so).
    observer.rateLimited({ service: 'recommender', endpoint: '/r' }, 30);
    observer.attemptFinished({ service: 'reporting', endpoint: '/q', durationMs: 10_000, failure: 'timeout' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('subgraph_upstream_requests_total{service="recommender",endpoint="/r",status_class="2xx"} 1');
    expect(text).toContain('subgraph_upstream_requests_total{service="recommender",endpoint="/r",status_class="4xx"} 1');
    expect(text).toContain('subgraph_upstream_requests_total{service="reporting",endpoint="/q",status_class="timeout"} 1');
    expect(text).toContain('subgraph_upstream_rate_limited_total{service="recommender",endpoint="/r"} 1');
    expect(await countOf(metrics.registry, 'subgraph_upstream_retry_after_seconds', { service: 'recommender' })).toBe(1);
  });

  it('turns every event of the call path into cache, governor, Retry-After and breaker metrics', async () => {
    const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
    const observer = metricsObserver(metrics);
    const r = { service: 'recommender', endpoint: '/r' } as const;
    observer.answerServed(r, 'stale');
    observer.answerServed(r, 'coalesced');
    observer.answerServed(r, 'coalesced');
    observer.governorQueued('render', 250);
    observer.governorRefused('render', 9_000);
    observer.budgetPaused('reporting', 2_000);
    observer.breakerChanged('recommender', 'open');
    observer.rateLimited({ service: 'reporting', endpoint: '/q' }, 2);
    const text = await metrics.registry.metrics();
    expect(text).toContain('subgraph_upstream_cache_events_total{endpoint="/r",result="stale"} 1');
    expect(text).toContain('subgraph_upstream_cache_events_total{endpoint="/r",result="coalesced"} 2');
    expect(text).toContain('subgraph_upstream_governor_waits_total{budget="render"} 1');
    expect(text).toContain('subgraph_upstream_governor_wait_seconds_total{budget="render"} 0.25');
    expect(text).toContain('subgraph_upstream_governor_refusals_total{budget="render"} 1');
    expect(text).toContain('subgraph_upstream_retry_after_wait_seconds_total{budget="reporting"} 2');
    expect(text).toContain('subgraph_upstream_breaker_state{upstream="recommender"} 2');
    expect(text).toContain('subgraph_upstream_governor_queue_length{budget="render"} 1');
    // rate_limited reaches the metrics (it was emitted and dropped before).
    expect(text).toContain('subgraph_upstream_rate_limited_total{service="reporting",endpoint="/q"} 1');
    observer.breakerChanged('recommender', 'half_open');
    observer.governorReleased('render', 250);
    expect(await metrics.registry.getSingleMetricAsString('subgraph_upstream_breaker_state')).toContain('{upstream="recommender"} 1');
    expect(await metrics.registry.getSingleMetricAsString('subgraph_upstream_governor_queue_length')).toContain('{budget="render"} 0');
  });
});

describe('the operation log', () => {
  it('writes one info line per operation with its outcome, upstream calls and cache hits', async () => {
    const written: string[] = [];
    const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => written.push(line) });
    // Answers stamped now: fetched by this operation, not served from the answer cache (src/operation/cacheHits.ts).
    const fake = fakeRecommender();
    const recommender = { ...fake, render: async (params: RenderParams) => ({ ...(await fake.render(params)), fetchedAt: Date.now() }) };
    const server = await startTestServer({ logger, recommender });
    try {
      await execute(
        server,
        'query Two { a: recommendations(experienceId: "IL_a", domain: "d.example") { url } b: recommendations(experienceId: "IL_b", domain: "d.example") { url } }',
      );
      await execute(server, 'query Bad { recommendations(experienceId: "IL_a") { url } }');
    } finally {
      await server.stop();
    }
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines
        .filter((entry) => 'operationName' in entry)
        .map((entry) => [entry.msg, entry.level, entry.operationName, entry.outcome, entry.upstreamCalls, entry.cacheHits]),
    ).toEqual([
      ['graphql operation', 30, 'Two', 'ok', 2, 0],
      ['graphql operation failed', 30, 'Bad', 'BAD_USER_INPUT', 0, 0],
    ]);
  });
});
