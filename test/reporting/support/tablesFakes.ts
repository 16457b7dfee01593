/**
 * Fakes for the analytics tables' unit tests: a clock that moves only when
 * the test says, a reporting budget of one slot per `slotMs` of that clock
 * (refusing with `budget_exhausted` and `retryAfter` in between, as the rate
 * store's bucket does), and a dashboard endpoint that answers rows by url,
 * each attempt granted its slot by the budget queue, recording every body it sent.
 */
import type { AnalyticsBoard, PostedNeed } from '../../../src/reporting/tables/analyticsBoard';
import { SlotClaims } from '../../../src/reporting/tables/slotClaims';
import type { Clock } from '../../../src/kernel/clock';
import { Demand } from '../../../src/reporting/tables/demand';
import type { BudgetQueue, BudgetQueueOptions } from '../../../src/reporting/budget/budgetQueue';
import { TableAsks } from '../../../src/reporting/tables/tableAsks';
import { alignInstant, resolveWindow } from '../../../src/reporting/dashboard/analyticsWindow';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../../src/kernel/wire';
import type { Served } from '../../../src/kernel/fetched';
import { UpstreamError } from '../../../src/kernel/failures/upstreamError';
import type { SlotBudget } from '../../../src/upstream/endpoints/dashboard';
import type { SlotGrant } from '../../../src/upstream/transport/httpClient';

export class FakeClock implements Clock {
  private timers: { at: number; wake: () => void }[] = [];

  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  /** Resolves after `ms` of this clock, or at once when `signal` aborts (its timer then leaves the list, as SYSTEM_CLOCK clears its timeout). */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.resolve();
    return new Promise((wake) => {
      const timer = { at: this.time + Math.max(0, ms), wake };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.timers.indexOf(timer);
          if (index >= 0) this.timers.splice(index, 1);
          wake();
        },
        { once: true },
      );
    });
  }

  /** Timers still waiting: what sleepers hold. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time on, waking each timer that falls due in order, with the promises it starts settled in between. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (next === undefined || next.at > end) break;
      this.timers.shift();
      this.time = Math.max(this.time, next.at);
      next.wake();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

/** Lets every promise chain already started run to its next real wait. */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

export interface FakeBudget extends SlotBudget {
  /** Another spender (a replica, a refresh) takes the next slot. */
  spendSlot(): void;
  /** Attempts refused for want of a slot. */
  refusals: number;
  /** The budget is shared again (a Redis store's `onSharedAgain`): tells the listeners. */
  sharedAgain(): void;
}

/**
 * The reporting budget's bucket on the fake clock: one slot per `slotMs` (the first at once), a take waiting
 * at most its `maxWaitMs` for its slot, else refused with `budget_exhausted` and `retryAfter` having taken nothing.
 */
export function fakeBudget(clock: FakeClock, slotMs: number): FakeBudget {
  let nextSlotAt = clock.now();
  const listeners = new Set<() => void>();
  const budget: FakeBudget = {
    refusals: 0,
    spendSlot() {
      nextSlotAt = Math.max(nextSlotAt, clock.now()) + slotMs;
    },
    async freeInMs() {
      return Math.max(0, nextSlotAt - clock.now());
    },
    async take(where, maxWaitMs) {
      const now = clock.now();
      const waitMs = Math.max(0, nextSlotAt - now);
      if (waitMs > maxWaitMs) {
        budget.refusals += 1;
        throw new UpstreamError({ ...where, kind: 'budget_exhausted', retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
      }
      nextSlotAt = Math.max(now, nextSlotAt) + slotMs;
      if (waitMs > 0) await clock.sleep(waitMs);
    },
    onSharedAgain(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sharedAgain() {
      for (const listener of [...listeners]) listener();
    },
  };
  return budget;
}

/** Where a fake's attempts are: the dashboard endpoint. */
export const DASHBOARD_WHERE = { service: 'reporting', endpoint: '/api/dashboard/query' } as const;

export interface FakeDashboard {
  query(body: DashboardQueryBody, grant?: SlotGrant): Promise<Served<DashboardMetricResultWire[]>>;
  /** The budget the queue grants the attempts from. */
  budget: FakeBudget;
  /** With `cacheMs`: the answer cache read alone (no slot), as the protected endpoint's `peek`. */
  peek?(body: DashboardQueryBody): Promise<Served<DashboardMetricResultWire[]> | undefined>;
  /** Answers served from the answer cache (`cacheMs`), no slot spent. */
  hits: number;
  /** Every body granted a slot, in order. */
  sent: DashboardQueryBody[];
  /** Attempts refused for want of a slot (the budget's). */
  readonly refusals: number;
}

export interface FakeDashboardOptions {
  clock: FakeClock;
  /** One slot per this many ms (63 s for the vendor's one a minute). */
  slotMs: number;
  /** The urls of the window, most read first: a whole table is their first `limit`. */
  urls: readonly string[];
  /** Metrics outside the plan: a query naming one answers the empty body. */
  unplanned?: readonly MetricName[];
  /**
   * An answer cache in front of the slots, as the protected endpoint has: a body answered within this many ms is
   * served again as a `hit` (no slot). Read after a macrotask, as a real cache read is I/O: a loop that keeps
   * reading it cannot starve the clock's timers, so a test counts its passes instead of hanging.
   */
  cacheMs?: number;
  /**
   * With `cacheMs`: the most hits the cache serves (default 1,000); past them the slots alone answer, so a loop
   * going round on cached answers is parked on the clock at the next refusal and the test ends with its count.
   */
  maxHits?: number;
  /** How long the vendor takes to answer a query granted its slot (default: at once); `fetchedAt` is when it answers. */
  latencyMs?: number;
}

/** A url's number for a metric: its position in `urls` encoded with the metric's length, so a test can compute it. */
export function fakeValue(urls: readonly string[], url: string, metric: MetricName): number {
  return (urls.length - urls.indexOf(url)) * 100 + metric.length;
}

export function fakeDashboard(options: FakeDashboardOptions): FakeDashboard {
  const budget = fakeBudget(options.clock, options.slotMs);
  const cache = new Map<string, Served<DashboardMetricResultWire[]>>();
  const cached = async (body: DashboardQueryBody) => {
    const cacheMs = options.cacheMs;
    if (cacheMs === undefined || dashboard.hits >= (options.maxHits ?? 1_000)) return undefined;
    await new Promise((resolve) => setImmediate(resolve));
    const answer = cache.get(JSON.stringify(body));
    return answer !== undefined && answer.fetchedAt + cacheMs > options.clock.now() ? { ...answer, cache: 'hit' as const } : undefined;
  };
  const dashboard: FakeDashboard = {
    sent: [],
    budget,
    get refusals() {
      return budget.refusals;
    },
    hits: 0,
    ...(options.cacheMs === undefined ? {} : { peek: cached }),
    async query(body, grant) {
      const hit = await cached(body);
      if (hit !== undefined) {
        dashboard.hits += 1;
        return hit;
      }
      // Through the queue, the attempt is the queue's grant; a test's direct call takes a free slot itself (or is refused).
      await (grant === undefined ? budget.take(DASHBOARD_WHERE, 0) : grant(DASHBOARD_WHERE, undefined));
      dashboard.sent.push(body);
      if (options.latencyMs !== undefined) await options.clock.sleep(options.latencyMs);
      const now = options.clock.now();
      if (body.metrics.some((metric) => options.unplanned?.includes(metric))) {
        throw new UpstreamError({ service: 'reporting', endpoint: '/api/dashboard/query', kind: 'metric_unavailable', status: 200 });
      }
      const urlFilter = body.filters.find((filter) => filter.filter === 'url');
      const rows = options.urls.filter((url) => urlFilter === undefined || urlFilter.value.includes(url)).slice(0, body.limit);
      const value: DashboardMetricResultWire[] = body.metrics.map((metric) => ({
        metric,
        total: 0,
        granularity: 'daily',
        availableGranularities: ['daily'],
        actualData: {
          values: rows.map((url) => ({
            key: url,
            total: fakeValue(options.urls, url, metric),
            items: [{ id: url, value: url, type: 'url' }],
          })),
          data: [],
        },
      }));
      const answer = { value, fetchedAt: now, cache: 'miss' as const };
      cache.set(JSON.stringify(body), answer);
      return answer;
    },
  };
  return dashboard;
}

/**
 * The replicas' board in one process, as Redis would hold it
 * (src/redis/reporting/redisAnalyticsBoard.ts is proven against a real
 * redis-server in test/redis/redisAnalyticsBoard.test.ts): `replica()`
 * gives each replica its own view of the shared posts, demand and plan.
 */
export function fakeBoard() {
  const waiting = new Map<string, Map<number, PostedNeed[]>>();
  const demand = new Demand();
  const unavailable = new Set<MetricName>();
  const claims = new SlotClaims();
  /** The replica whose query of each table is in flight (claims never expire here: a test's replica always releases). */
  const fetching = new Map<string, number>();
  let replicas = 0;
  return {
    /** The cluster's demand, as every replica's asks recorded it. */
    demand,
    /** The metrics the cluster learned the plan lacks (a test may forget or poison them). */
    unavailable,
    replica(): AnalyticsBoard {
      const id = replicas++;
      return {
        post(key, needs) {
          const byReplica = waiting.get(key) ?? new Map<number, PostedNeed[]>();
          byReplica.set(id, [...needs]);
          waiting.set(key, byReplica);
        },
        async posted() {},
        async othersWaiting(key, now) {
          const byReplica = [...(waiting.get(key) ?? new Map<number, PostedNeed[]>())];
          return byReplica.filter(([replica]) => replica !== id).flatMap(([, needs]) => needs.filter((need) => need.deadline > now));
        },
        async recordDemand(key, now) {
          demand.record(key, now);
          return demand.score(key, now);
        },
        async unavailableMetrics() {
          return [...unavailable];
        },
        learnUnavailable(metric) {
          unavailable.add(metric);
        },
        async claimSlot(claimant, from, slotMs, most, now) {
          return claims.claim(claimant, from, slotMs, most, now) ?? false;
        },
        async claimantsAt(at, slotMs) {
          return claims.claimantsAt(at, slotMs);
        },
        async claimFetch(key) {
          if ((fetching.get(key) ?? id) !== id) return false;
          fetching.set(key, id);
          return true;
        },
        releaseFetch(key) {
          if (fetching.get(key) === id) fetching.delete(key);
        },
      };
    },
  };
}

/** The tables' asks in a test's budget queue: one metric per table (its rank), a minute's alignment, 500 rows. */
export function tableAsksIn(queue: BudgetQueue, reporting: BudgetQueueOptions['reporting']): TableAsks {
  return new TableAsks({
    queue,
    reporting,
    tableMetrics: (spec) => [spec.rank],
    windowOf: (spec, now) => resolveWindow(spec.window, alignInstant(now, 60)),
    maxRows: 500,
    maxNarrowedUrls: 500,
    onTable: async () => {},
  });
}

/** A dashboard of the last `days` days of one metric: bodies of different lengths never merge nor share an answer. */
export function lastDaysDashboard(days: number, metric: MetricName = 'uniqueUsers'): DashboardQueryBody {
  return {
    dates: { last: { number: days, dimension: 'day' } },
    filters: [],
    groupBy: [],
    metrics: [metric],
    order: { metric, sort: 'DESC' },
  };
}
