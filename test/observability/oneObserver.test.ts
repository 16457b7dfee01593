/**
 * One observer (src/kernel/observer.ts): the call path, the budget queue, the
 * live numbers, the operations and Redis report their events to it, and only
 * its implementations in observability/ turn them into series and log lines.
 * So no file outside observability/ calls a recording method of the metrics,
 * and each part hears through the observer what it used to write directly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NO_OBSERVER, safeObserver, type Observer } from '../../src/kernel/observer';
import { SYSTEM_CLOCK } from '../../src/kernel/clock';
import { LiveNumbers } from '../../src/reporting/live/liveNumbers';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { Metrics } from '../../src/observability/metrics/metrics';
import { metricsObserver } from '../../src/observability/metricsObserver';
import { operationLog } from '../../src/observability/operationLog';
import { createLogger } from '../../src/observability/logger';
import { METRICS_DEFAULTS } from '../../src/config';

const SRC = resolve(__dirname, '../../src');
/** A call of a Metrics recording method (recordOperation, recordBatch, recordLimitRefusal…) on anything named metrics. */
const RECORDING_CALL = /\bmetrics\??\.record[A-Z]\w*\(/;

function filesWritingMetrics(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.startsWith('observability/'))
    .filter((name) => RECORDING_CALL.test(readFileSync(join(SRC, name), 'utf8')));
}

describe('the one observer', () => {
  it('recognizes a recording call, so the scan below can find one', () => {
    expect(RECORDING_CALL.test('metrics.recordOperation({})')).toBe(true);
    expect(RECORDING_CALL.test('(code) => metrics?.recordLimitRefusal(code)')).toBe(true);
    expect(RECORDING_CALL.test('allowance.recordCacheHit()')).toBe(false);
  });

  it('is the only writer of metrics: no file outside observability/ records a series itself', () => {
    expect(filesWritingMetrics()).toEqual([]);
  });

  it("hears a subscription's start, events and end from the live numbers, and both the log and the series tell them", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
    const heard: string[] = [];
    const recorder: Observer = {
      ...NO_OBSERVER,
      subscriptionOpened: ({ field }) => heard.push(`opened ${field}`),
      eventSent: (field) => heard.push(`sent ${field}`),
      subscriptionClosed: ({ field, events }) => heard.push(`closed ${field} after ${events}`),
    };
    const live = new LiveNumbers({
      refreshes: new TableRefreshes(),
      clock: SYSTEM_CLOCK,
      askDeadlineMs: 1_000,
      dashboardTtlSeconds: 60,
      maxSubscriptions: 10,
      observer: safeObserver(metricsObserver(metrics), operationLog(logger), recorder),
    });
    const stream = live.subscribe('topArticles', {
      key: 'k',
      table: 't',
      read: async () => 42,
      same: (a, b) => a === b,
    });
    const first = await stream.next();
    expect(first.done).toBe(false);
    await stream.return?.();
    live.close();

    expect(heard).toEqual(['opened topArticles', 'sent topArticles', 'closed topArticles after 1']);
    expect(lines.map((line) => [line.msg, line.field])).toEqual([
      ['subscription started', 'topArticles'],
      ['subscription ended', 'topArticles'],
    ]);
    expect(await metrics.registry.getSingleMetricAsString('subgraph_subscription_events_total')).toContain('field="topArticles"} 1');
    expect(await metrics.registry.getSingleMetricAsString('subgraph_subscriptions_open')).toContain('field="topArticles"} 0');
  });
});
