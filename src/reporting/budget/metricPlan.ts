import type { MetricName } from '../../kernel/wire';
import { Metric } from '../../../contract';

/**
 * The metrics an account's plan may leave out: the live API's plans without
 * ads answer 200 with an empty body for any query naming one of them
 * (contract §2, the emulator's realistic profile). The empty body names no
 * metric, so a query carries at most one of these until it is proven.
 */
const PLAN_DEPENDENT: ReadonlySet<MetricName> = new Set([
  Metric.REVENUE_TOTAL,
  Metric.ADS_IMPRESSIONS,
  Metric.CPM,
  Metric.RPM,
  Metric.ADS_PER_PAGE,
]);

/**
 * What the account's plan is known to allow, learned from answers: a metric
 * is unavailable once an empty body answered a query where it was the only
 * unproven one, and proven once an answer carried it. Per account: the
 * process-wide tables of one service account hold one plan.
 */
export class MetricPlan {
  /** Learned by this process: kept for its lifetime. */
  private readonly unavailable = new Set<MetricName>();
  /** Learned by the cluster, as the board last said (replaced at each reading, so it ends when the board forgets). */
  private shared = new Set<MetricName>();
  private readonly proven = new Set<MetricName>();

  /** Dashboard metrics of a merged query answered with the empty body, not yet seen answered: their asks are not merged. */
  private readonly suspects = new Set<MetricName>();
  private readonly listeners: ((metric: MetricName) => void)[] = [];

  /** `onUnavailable`: told of each metric this process learns the plan lacks (the replicas' board). */
  constructor(onUnavailable?: (metric: MetricName) => void) {
    if (onUnavailable !== undefined) this.listeners.push(onUnavailable);
  }

  /** Tells `listener` of each metric this process learns the plan lacks from now on (the replicas' board). */
  tellUnavailable(listener: (metric: MetricName) => void): void {
    this.listeners.push(listener);
  }

  isUnavailable(metric: MetricName): boolean {
    return this.unavailable.has(metric) || this.shared.has(metric);
  }

  isUnproven(metric: MetricName): boolean {
    return PLAN_DEPENDENT.has(metric) && !this.proven.has(metric) && !this.isUnavailable(metric);
  }

  learnUnavailable(metric: MetricName): void {
    if (this.unavailable.has(metric)) return;
    this.unavailable.add(metric);
    for (const listener of this.listeners) listener(metric);
  }

  /**
   * A merged query naming these metrics was answered with the empty body (the
   * upstream does not say which one is outside the plan): each not yet seen
   * answered is a suspect, asked alone until an answer carries it.
   */
  learnSuspects(metrics: Iterable<MetricName>): void {
    for (const metric of metrics) if (!this.proven.has(metric)) this.suspects.add(metric);
  }

  isSuspect(metric: MetricName): boolean {
    return this.suspects.has(metric);
  }

  /**
   * What the replicas learned, as the board says now: replaces the last
   * reading. Only plan-dependent metrics this process has not seen in an
   * answer: an entry naming any other metric is not believed.
   */
  adoptShared(metrics: Iterable<MetricName>): void {
    this.shared = new Set([...metrics].filter((metric) => PLAN_DEPENDENT.has(metric) && !this.proven.has(metric)));
  }

  learnAvailable(metrics: Iterable<MetricName>): void {
    for (const metric of metrics) {
      this.proven.add(metric);
      this.suspects.delete(metric);
    }
  }

  /**
   * The metrics one query may carry: the wanted ones the plan allows, the
   * proven or presumed ones all, the unproven at most one (the first wanted),
   * so an empty answer names the metric it is about.
   */
  queryMetrics(wanted: Iterable<MetricName>): { metrics: MetricName[]; unproven?: MetricName } {
    const metrics: MetricName[] = [];
    let unproven: MetricName | undefined;
    for (const metric of new Set(wanted)) {
      if (this.isUnavailable(metric)) continue;
      if (this.isUnproven(metric)) {
        if (unproven !== undefined) continue;
        unproven = metric;
      }
      metrics.push(metric);
    }
    return unproven === undefined ? { metrics } : { metrics, unproven };
  }
}
