import { OPEN_CALLER } from '../../auth/callers/caller';
import type { DashboardQueryBody } from '../../kernel/wire';
import type { UpstreamError } from '../../kernel/failures/upstreamError';
import { dashboardBodyKey } from '../../upstream/keys';
import { type BudgetQueue, type AskKind, type Candidate, type QueuedAsk, type Turn } from '../budget/budgetQueue';
import { splitsOnEmptyBody, waitsForSlot } from '../budget/errors';
import type { DashboardAnswer } from '../../kernel/fetched';
import { carriesMetrics, kindOf, mergedBody, sliceAnswer } from './metricKinds';

/** How one operation's dashboard asks reach the upstream: grouped by what may share a query, each group asked at once. */
export interface DashboardAsker {
  /** Asks of one group may share one query (the same kind, and no metric suspected of spoiling merges). */
  groupOf(body: DashboardQueryBody): string;
  /** One query for distinct bodies of one group; each body's own answer (or failure), in order. */
  ask(bodies: readonly DashboardQueryBody[]): Promise<(DashboardAnswer | Error)[]>;
}

export interface DashboardAsksOptions {
  /** The one queue for the reporting budget (src/reporting/reportingService.ts builds it once; tests their own). */
  queue: BudgetQueue;
}

/** The last body answered per kind is remembered for this many kinds (oldest forgotten first). */
const REMEMBERED_KINDS = 1000;

/** A dashboard ask waiting in the queue, with its caller (whose fair share its slot counts in). */
type Waiter = QueuedAsk<DashboardAnswer> & { body: DashboardQueryBody; caller: string };

/**
 * Dashboard asks in the budget queue (src/reporting/budget/budgetQueue.ts): asks
 * that differ only in their metrics share one upstream query, without adding
 * latency to any ask that can be answered now:
 * - one operation's asks of a kind are one query at once (`ask`, called from
 *   the operation's DataLoader batch: end-of-tick, no timer);
 * - an ask the budget refuses (`budget_exhausted`, no slot now) whose next
 *   slot falls within its deadline waits in the queue, per kind,
 *   process-wide; asks of the same kind that also find no slot join it, and
 *   when the slot comes ONE query carries the union of their metrics (the
 *   merge rule: by metric).
 *
 * A merged query answered with the empty body (metric_unavailable: some
 * metric is outside the plan, the upstream does not say which) is asked again
 * body by body, so only the asks naming such a metric fail; the metrics of
 * that query not yet seen answered are suspects in the plan from then on and
 * their asks are not merged until one is answered, so one unplanned metric
 * does not spoil every merge of its kind.
 */
export class DashboardAsks implements AskKind {
  readonly name = 'dashboard';
  readonly refusesHopeless = true;
  readonly queue: BudgetQueue;
  /** Per kind, the body a query last fetched: an ask it covers is answered from its cached answer rather than waiting. */
  private readonly lastFetched = new Map<string, DashboardQueryBody>();

  constructor(options: DashboardAsksOptions) {
    this.queue = options.queue;
  }

  /**
   * The asker of one operation, whose asks stop waiting at `deadline` (epoch ms of the queue's clock), for
   * `caller` (`context.caller.id`): the queue counts the slots its asks spend in that caller's fair share.
   */
  asker(deadline: number, caller: string): DashboardAsker {
    return { groupOf: (body) => this.groupOf(body), ask: (bodies) => this.ask(bodies, deadline, caller) };
  }

  groupOf(body: DashboardQueryBody, alone = false): string {
    if (alone || body.metrics.some((metric) => this.queue.plan.isSuspect(metric))) return `alone:${dashboardBodyKey(body)}`;
    return `kind:${kindOf(body)}`;
  }

  async ask(
    bodies: readonly DashboardQueryBody[],
    deadline: number,
    caller: string = OPEN_CALLER.id,
    alone = false,
  ): Promise<(DashboardAnswer | Error)[]> {
    const merged = mergedBody(bodies);
    try {
      const answer = await this.query(merged, deadline, caller, alone);
      return bodies.map((body) => sliceAnswer(answer, body.metrics));
    } catch (error) {
      if (splitsOnEmptyBody(error) && distinctCount(bodies) > 1) {
        // One body's metric spoiled the union: each alone, so the others still get their numbers.
        return Promise.all(bodies.map((body) => this.ask([body], deadline, caller, true).then((results) => results[0])));
      }
      return bodies.map(() => asError(error));
    }
  }

  /** The fullest group (the earliest deadline first among equals). */
  candidates(asks: readonly QueuedAsk[]): Candidate[] {
    const byGroup = new Map<string, Waiter[]>();
    for (const waiter of asks as Waiter[]) byGroup.set(waiter.group, [...(byGroup.get(waiter.group) ?? []), waiter]);
    return [...byGroup.values()].map((waiters) => ({
      class: 'dashboard',
      weight: waiters.length,
      earliestDeadline: Math.min(...waiters.map((waiter) => waiter.deadline)),
      take: async () => this.turn(waiters),
    }));
  }

  /**
   * Tries now (the queue refuses it at once if its caller spent its share); refused for want of a slot,
   * answers from a fetched body that covers it, else waits for the slot within the deadline.
   */
  private async query(body: DashboardQueryBody, deadline: number, caller: string, alone: boolean): Promise<DashboardAnswer> {
    let refusal: UpstreamError;
    try {
      return this.learnAnswered(body, await this.queue.tryNow(this, body, caller));
    } catch (error) {
      this.learnFailed(body, error);
      if (!waitsForSlot(error)) throw error;
      refusal = error;
    }
    const covered = await this.fromLastFetched(body, caller);
    if (covered !== undefined) return covered;
    if (refusal.retryAfterSeconds === undefined) throw refusal;
    if (this.queue.clock.now() + refusal.retryAfterSeconds * 1000 > deadline) {
      // The slot comes after its deadline: refused now, told like any refusal at the deadline (counted by kind).
      this.queue.observer.askRefused(this.name, 'deadline');
      throw refusal;
    }
    return this.queue.wait<DashboardAnswer>(this, this.groupOf(body, alone), deadline, { body, caller });
  }

  /**
   * A body of the kind fetched earlier that carries every metric of this one
   * (a merged query's union): its answer is still in the answer cache while
   * fresh (or stale-if-error), so the ask is sliced from it instead of waiting.
   * Asked through the queue like any try (which reads the answer cache alone
   * before it holds the ask back): if it is no longer cached, its query keeps
   * the queue's rules (the caller's share, the newsroom first) and its slot
   * counts in the caller's share.
   */
  private async fromLastFetched(body: DashboardQueryBody, caller: string): Promise<DashboardAnswer | undefined> {
    const fetched = this.lastFetched.get(kindOf(body));
    if (fetched === undefined || !carriesMetrics(fetched, body.metrics) || dashboardBodyKey(fetched) === dashboardBodyKey(body))
      return undefined;
    try {
      const sliced = sliceAnswer(await this.queue.tryNow(this, fetched, caller), body.metrics);
      return sliced instanceof Error ? undefined : sliced;
    } catch {
      // Not cached any more (and no slot): the ask waits like any other.
      return undefined;
    }
  }

  /** The merge rule: one body with the union of the group's metrics, each ask sliced its own metrics back. */
  private turn(waiters: Waiter[]): Turn {
    const live = () => waiters.filter((waiter) => !waiter.settled);
    const bodies = waiters.map((waiter) => waiter.body);
    const body = mergedBody(bodies);
    return {
      body,
      asks: waiters,
      answered: async (served) => {
        const answer = this.learnAnswered(body, served);
        const answered = live();
        for (const waiter of answered) waiter.settle(sliceAnswer(answer, waiter.body.metrics));
        return answered.length;
      },
      failed: (error) => {
        this.learnFailed(body, error);
        if (splitsOnEmptyBody(error) && distinctCount(bodies) > 1) {
          // Each waiter alone (its own operation splits its own body further), each at a slot of its own within its deadline.
          for (const waiter of live()) {
            this.query(waiter.body, waiter.deadline, waiter.caller, true).then(
              (answer) => waiter.settle(answer),
              (failure: unknown) => waiter.settle(asError(failure)),
            );
          }
          return;
        }
        for (const waiter of live()) waiter.settle(asError(error));
      },
    };
  }

  private learnAnswered(body: DashboardQueryBody, answer: DashboardAnswer): DashboardAnswer {
    this.queue.plan.learnAvailable(body.metrics);
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
    if (splitsOnEmptyBody(error)) this.queue.plan.learnSuspects(body.metrics);
  }
}

function distinctCount(bodies: readonly DashboardQueryBody[]): number {
  return new Set(bodies.map(dashboardBodyKey)).size;
}

/** DataLoader treats only Error instances as failures; anything else thrown would be cached as a value. */
export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`dashboard query failed: ${String(reason)}`);
}
