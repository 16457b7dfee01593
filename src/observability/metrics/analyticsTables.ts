import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { BoundedLabel } from './boundedLabel';

/** Asks one upstream query answered: 0 for a refresh nobody waited for. */
const ASKS_BUCKETS = [0, 1, 2, 5, 10, 25, 50, 100, 500];
/** Distinct tables shown by their age; the rest share `__other__`. */
const TABLE_LABEL_LIMIT = 20;

/** Why an analytics ask got no number. */
export type RefusalReason = 'deadline' | 'metric_unavailable' | 'upstream_error';

/**
 * The analytics tables' own series (docs/analytics-tables.md): asks answered
 * per upstream query, asks waiting for a unit, each table's age, refusals by
 * reason. Table labels are the window and rank metric (e.g. `last_7_day_pageViewsTotal`),
 * never filter values, and bounded.
 */
class AnalyticsTableMetrics {
  private readonly asksPerQuery: Histogram;
  private readonly waiting: Gauge;
  private readonly refusals: Counter<'reason'>;
  private readonly fetchedAt = new Map<string, number>();
  private readonly tables = new BoundedLabel(TABLE_LABEL_LIMIT);

  constructor(registry: Registry, now: () => number) {
    const registers = [registry];
    this.asksPerQuery = new Histogram({
      name: 'subgraph_analytics_asks_per_query',
      help: 'Analytics asks one dashboard query answered (0: a refresh nobody waited for)',
      buckets: ASKS_BUCKETS,
      registers,
    });
    this.waiting = new Gauge({
      name: 'subgraph_analytics_asks_waiting',
      help: 'Analytics asks waiting for a unit of the reporting budget',
      registers,
    });
    this.refusals = new Counter({
      name: 'subgraph_analytics_refusals_total',
      help: 'Analytics asks answered with an error, by reason (deadline: no unit in time; metric_unavailable; upstream_error)',
      labelNames: ['reason'] as const,
      registers,
    });
    const fetchedAt = this.fetchedAt;
    new Gauge({
      name: 'subgraph_analytics_table_age_seconds',
      help: 'Age of the newest table of each window and rank metric (bounded labels)',
      labelNames: ['table'] as const,
      registers,
      collect() {
        for (const [table, at] of fetchedAt) this.set({ table }, Math.max(0, (now() - at) / 1000));
      },
    });
  }

  recordAnswered(asks: number): void {
    this.asksPerQuery.observe(asks);
  }

  recordWaiting(count: number): void {
    this.waiting.set(count);
  }

  recordRefusal(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }

  recordTable(name: string, fetchedAt: number): void {
    const label = this.tables.valueOf(name);
    this.fetchedAt.set(label, Math.max(this.fetchedAt.get(label) ?? 0, fetchedAt));
  }
}

/** One set of series per registry: a second server on the same registry (tests) shares them. */
const byRegistry = new WeakMap<Registry, AnalyticsTableMetrics>();

export function analyticsTableMetrics(registry: Registry, now: () => number): AnalyticsTableMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = new AnalyticsTableMetrics(registry, now);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}
