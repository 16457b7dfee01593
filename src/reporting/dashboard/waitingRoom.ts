import type { DashboardEndpoint } from '../../upstream/endpoints/dashboard';
import type { DashboardQueryBody, MetricName } from '../../upstream/datasources/wire';
import type { UpstreamError } from '../../upstream/failures/upstreamError';
import { dashboardBodyKey } from '../../upstream/keys';
import type { Clock } from '../tables/clock';
import { isUpstreamError, refused } from '../tables/errors';
import { carriesMetrics, kindOf, mergedBody, sliceAnswer, type DashboardAnswer } from './metricKinds';

/** How one operation's dashboard asks reach the upstream: grouped by what may share a query, each group asked at once. */
export interface DashboardAsker {
  /** Asks of one group may share one query (the same kind, and no metric suspected of spoiling merges). */
  groupOf(body: DashboardQueryBody): string;
  /** One query for distinct bodies of one group; each body's own answer (or failure), in order. */
  ask(bodies: readonly DashboardQueryBody[]): Promise<(DashboardAnswer | Error)[]>;
}

export interface DashboardWaitingRoomOptions {
  /** The protected endpoint, process-wide: it caches, coalesces and governs; the room only decides what to send and when. */
  dashboard: Pick<DashboardEndpoint, 'query' | 'onBudgetShared'>;
  clock: Clock;
  /**
   * How long before the next unit the waiting asks' query goes
   * (UPSTREAM_QUEUE_TIMEOUT_MS): the governor holds it until the unit, so an
   * ask arriving in those last moments cannot take the unit for its body alone.
   */
  unitLeadMs: number;
  /** Asks waiting now (tests await it; a gauge could follow it). */
  onWaiting?(count: number): void;
}

/** The last body answered per kind is remembered for this many kinds (oldest forgotten first). */
const REMEMBERED_KINDS = 1000;

interface Waiter {
  group: string;
  body: DashboardQueryBody;
  deadline: number;
  settled: boolean;
  settle(outcome: DashboardAnswer | Error): void;
}

/**
 * Dashboard asks that differ only in their metrics share one upstream query,
 * without adding latency to any ask that can be answered now:
 * - one operation's asks of a kind are one query at once (`ask`, called from
 *   the operation's DataLoader batch: end-of-tick, no timer);
 * - an ask the governor refuses (`budget_exhausted`, no unit now) whose next
 *   unit falls within its deadline waits here, per kind, process-wide; asks
 *   of the same kind that also find no unit join it, and when the unit comes
 *   ONE query carries the union of their metrics. When the next unit is, it
 *   learns from the refusal, like the analytics unit scheduler: a refused try
 *   spends nothing.
 * Not the analytics scheduler itself: that one builds tables (grouped by url,
 * a spec each) and answers asks from them, while a dashboard ask is an
 * arbitrary body whose answer goes back as it came.
 *
 * A merged query answered with the empty body (metric_unavailable: some
 * metric is outside the plan, the upstream does not say which) is asked again
 * body by body, so only the asks naming such a metric fail; the metrics of
 * that query not yet seen answered are suspects from then on and their asks
 * are not merged until one is answered, so one unplanned metric does not
 * spoil every merge of its kind.
 */
export class DashboardWaitingRoom {
  private readonly waiting = new Map<string, Waiter[]>();
  /** Per kind, the body a query last fetched: an ask it covers is answered from its cached answer rather than waiting. */
  private readonly lastFetched = new Map<string, DashboardQueryBody>();
  private readonly answeredMetrics = new Set<MetricName>();
  private readonly suspectMetrics = new Set<MetricName>();
  /** The earliest instant the governor may grant a unit, as its last refusal said; 0: try now. */
  private nextUnitAt = 0;
  /** The query in flight went before the unit: if the governor refused it after all, the next one waits for the unit itself. */
  private wentEarly = false;
  private running = false;

  constructor(private readonly options: DashboardWaitingRoomOptions) {
    options.dashboard.onBudgetShared?.(() => this.forgetNextUnit());
  }

  /** The shared budget is back (Redis): a next unit learned from the local share's refusal no longer holds; the next pass asks the governor. */
  forgetNextUnit(): void {
    this.nextUnitAt = 0;
  }

  /** The asker of one operation, whose asks stop waiting at `deadline` (epoch ms of the room's clock). */
  asker(deadline: number): DashboardAsker {
    return { groupOf: (body) => this.groupOf(body), ask: (bodies) => this.ask(bodies, deadline) };
  }

  groupOf(body: DashboardQueryBody, alone = false): string {
    if (alone || body.metrics.some((metric) => this.suspectMetrics.has(metric))) return `alone:${dashboardBodyKey(body)}`;
    return `kind:${kindOf(body)}`;
  }

  async ask(bodies: readonly DashboardQueryBody[], deadline: number, alone = false): Promise<(DashboardAnswer | Error)[]> {
    const merged = mergedBody(bodies);
    try {
      const answer = await this.query(merged, deadline, alone);
      return bodies.map((body) => sliceAnswer(answer, body.metrics));
    } catch (error) {
      if (isUpstreamError(error, 'metric_unavailable') && distinctCount(bodies) > 1) {
        // One body's metric spoiled the union: each alone, so the others still get their numbers.
        return Promise.all(bodies.map((body) => this.ask([body], deadline, true).then((results) => results[0])));
      }
      return bodies.map(() => asError(error));
    }
  }

  /** Tries now; refused for want of a unit, answers from a fetched body that covers it, else waits for the unit within the deadline. */
  private async query(body: DashboardQueryBody, deadline: number, alone: boolean): Promise<DashboardAnswer> {
    let refusal: UpstreamError;
    try {
      return this.learnAnswered(body, await this.options.dashboard.query(body));
    } catch (error) {
      this.learnFailed(body, error);
      if (!isUpstreamError(error, 'budget_exhausted')) throw error;
      refusal = error;
    }
    const covered = await this.fromLastFetched(body);
    if (covered !== undefined) return covered;
    const now = this.options.clock.now();
    const unitAt = now + (refusal.retryAfterSeconds ?? 1) * 1000;
    if (refusal.retryAfterSeconds === undefined || unitAt > deadline) throw refusal;
    this.nextUnitAt = unitAt;
    return this.wait(body, deadline, this.groupOf(body, alone));
  }

  /**
   * A body of the kind fetched earlier that carries every metric of this one
   * (a merged query's union): its answer is still in the answer cache while
   * fresh (or stale-if-error), so the ask is sliced from it instead of waiting.
   */
  private async fromLastFetched(body: DashboardQueryBody): Promise<DashboardAnswer | undefined> {
    const fetched = this.lastFetched.get(kindOf(body));
    if (fetched === undefined || !carriesMetrics(fetched, body.metrics) || dashboardBodyKey(fetched) === dashboardBodyKey(body))
      return undefined;
    try {
      const sliced = sliceAnswer(await this.options.dashboard.query(fetched), body.metrics);
      return sliced instanceof Error ? undefined : sliced;
    } catch {
      // Not cached any more (and no unit): the ask waits like any other.
      return undefined;
    }
  }

  private wait(body: DashboardQueryBody, deadline: number, group: string): Promise<DashboardAnswer> {
    const now = this.options.clock.now();
    return new Promise<DashboardAnswer>((resolve, reject) => {
      const waiter: Waiter = {
        group,
        body,
        deadline,
        settled: false,
        settle: (outcome) => {
          if (waiter.settled) return;
          waiter.settled = true;
          this.remove(waiter);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        },
      };
      this.enqueue(waiter);
      void this.options.clock.sleep(deadline - now).then(() => waiter.settle(refused(this.retryAfterMs())));
      this.start();
    });
  }

  private start(): void {
    if (this.running) return;
    this.running = true;
    void this.run();
  }

  /** One query per pass, or a sleep until the next unit: bounded by the governor's rate. */
  private async run(): Promise<void> {
    try {
      while (this.waiting.size > 0) {
        const untilUnitMs = this.nextUnitAt - this.options.clock.now();
        const waitMs = untilUnitMs - (this.wentEarly ? 0 : this.options.unitLeadMs);
        if (waitMs > 0) {
          this.refuseHopeless();
          if (this.waiting.size === 0) return;
          await this.options.clock.sleep(waitMs);
          continue;
        }
        this.wentEarly = untilUnitMs > 0;
        await this.send(this.takeFullestGroup());
      }
    } finally {
      // In the same turn as the last look at the list: an ask enqueued a moment later starts a new run.
      this.running = false;
    }
  }

  /** The group with the most asks waiting (the earliest deadline first among equals), taken off the list while its query is in flight. */
  private takeFullestGroup(): Waiter[] {
    const lists = [...this.waiting.values()];
    const earliest = (list: Waiter[]) => Math.min(...list.map((waiter) => waiter.deadline));
    lists.sort((a, b) => b.length - a.length || earliest(a) - earliest(b));
    const waiters = [...(lists[0] ?? [])];
    for (const waiter of waiters) this.remove(waiter);
    return waiters;
  }

  private async send(waiters: Waiter[]): Promise<void> {
    const live = () => waiters.filter((waiter) => !waiter.settled);
    const bodies = waiters.map((waiter) => waiter.body);
    const body = mergedBody(bodies);
    try {
      const answer = this.learnAnswered(body, await this.options.dashboard.query(body));
      this.nextUnitAt = 0;
      for (const waiter of live()) waiter.settle(sliceAnswer(answer, waiter.body.metrics));
    } catch (error) {
      this.learnFailed(body, error);
      if (isUpstreamError(error, 'budget_exhausted')) {
        // Not sent, no unit spent: they wait for the unit the refusal names.
        this.nextUnitAt = this.options.clock.now() + (error.retryAfterSeconds ?? 1) * 1000;
        for (const waiter of live()) this.enqueue(waiter);
        return;
      }
      if (isUpstreamError(error, 'metric_unavailable') && distinctCount(bodies) > 1) {
        // Each waiter alone (its own operation splits its own body further), each at a unit of its own within its deadline.
        for (const waiter of live()) {
          this.query(waiter.body, waiter.deadline, true).then(
            (answer) => waiter.settle(answer),
            (failure: unknown) => waiter.settle(asError(failure)),
          );
        }
        return;
      }
      for (const waiter of live()) waiter.settle(asError(error));
    }
  }

  /** Asks whose deadline comes before the next unit get their refusal now rather than at their deadline. */
  private refuseHopeless(): void {
    for (const list of [...this.waiting.values()]) {
      for (const waiter of [...list]) if (waiter.deadline < this.nextUnitAt) waiter.settle(refused(this.retryAfterMs()));
    }
  }

  private retryAfterMs(): number {
    return Math.max(1_000, this.nextUnitAt - this.options.clock.now());
  }

  private learnAnswered(body: DashboardQueryBody, answer: DashboardAnswer): DashboardAnswer {
    for (const metric of body.metrics) {
      this.answeredMetrics.add(metric);
      this.suspectMetrics.delete(metric);
    }
    if (answer.cache === 'miss') {
      const kind = kindOf(body);
      this.lastFetched.delete(kind);
      this.lastFetched.set(kind, body);
      const oldest = this.lastFetched.keys().next();
      if (this.lastFetched.size > REMEMBERED_KINDS && oldest.done !== true) this.lastFetched.delete(oldest.value);
    }
    return answer;
  }

  /** The upstream does not say which metric is outside the plan: every one of the query's not yet seen answered is a suspect. */
  private learnFailed(body: DashboardQueryBody, error: unknown): void {
    if (!isUpstreamError(error, 'metric_unavailable')) return;
    for (const metric of body.metrics) if (!this.answeredMetrics.has(metric)) this.suspectMetrics.add(metric);
  }

  private enqueue(waiter: Waiter): void {
    const list = this.waiting.get(waiter.group) ?? [];
    list.push(waiter);
    this.waiting.set(waiter.group, list);
    this.reportWaiting();
  }

  private remove(waiter: Waiter): void {
    const list = this.waiting.get(waiter.group);
    if (list === undefined) return;
    const index = list.indexOf(waiter);
    if (index < 0) return;
    list.splice(index, 1);
    if (list.length === 0) this.waiting.delete(waiter.group);
    this.reportWaiting();
  }

  private reportWaiting(): void {
    let count = 0;
    for (const list of this.waiting.values()) count += list.length;
    this.options.onWaiting?.(count);
  }
}

function distinctCount(bodies: readonly DashboardQueryBody[]): number {
  return new Set(bodies.map(dashboardBodyKey)).size;
}

/** DataLoader treats only Error instances as failures; anything else thrown would be cached as a value. */
export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`dashboard query failed: ${String(reason)}`);
}
