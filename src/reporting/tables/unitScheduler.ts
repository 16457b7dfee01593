import type { DashboardEndpoint } from '../../upstream/endpoints/dashboard';
import type { DashboardQueryBody, MetricName } from '../../upstream/datasources/wire';
import type { ResolvedWindow } from '../analytics/window';
import type { AnalyticsBoard, PostedNeed } from './analyticsBoard';
import type { Clock } from './clock';
import { builtQueryFailure, isUpstreamError, metricUnavailable, refused } from './errors';
import type { MetricPlan } from './metricPlan';
import { readCell, tabulate, type Table } from './table';
import { coldQuery, tableQuery, type TableSpec } from './tableSpec';

/** What an ask needs fetched: the whole table, or the urls a full table lacks; and the metrics it reads. */
export interface Need {
  spec: TableSpec;
  /** Absent: the whole table. */
  urls?: readonly string[];
  metrics: readonly MetricName[];
  /** The articles the ask wants numbers of (absent: a ranking, any rows). */
  articles?: readonly string[];
}

/** The answer a waiting ask gets: the table its unit fetched and how many asks that one query answered. */
export interface Delivery {
  table: Table;
  asks: number;
  /** Fetched by another replica's unit (read from the shared store). */
  byAnotherReplica?: boolean;
}

export interface UnitSchedulerOptions {
  /** The protected endpoint, process-wide: it caches, coalesces and governs; the scheduler only decides what to send. */
  reporting: Pick<DashboardEndpoint, 'query'>;
  clock: Clock;
  plan: MetricPlan;
  /** The metrics every table of the spec carries (those the plan allows); waiting asks add theirs. */
  tableMetrics(spec: TableSpec): MetricName[];
  /** The spec's window over the instants of now (relative windows aligned). */
  windowOf(spec: TableSpec, now: number): ResolvedWindow;
  /** REPORTING_MAX_ROWS: rows of a whole table. */
  maxRows: number;
  /** Most urls one cold query carries (ANALYTICS_CHUNK_SIZE, at most REPORTING_MAX_ROWS). */
  maxColdUrls: number;
  /** ANALYTICS_COLD_SHARE. */
  coldShare: number;
  /** Every fetched table goes here (the store) before the asks that waited for it are answered. */
  onTable(table: Table): Promise<void>;
  /** One query answered `asks` waiting asks (0 for a refresh nobody waited for). */
  onAnswered?(asks: number): void;
  /** Asks waiting now. */
  onWaiting?(count: number): void;
  /**
   * Set when the tables are shared by replicas (Redis): what the shared store
   * holds now for a spec, so an ask waiting here is answered by a table
   * another replica fetched (checked every SHARED_POLL_MS while waiting).
   */
  lookup?(need: Need): Promise<Table | undefined>;
  /**
   * Set when replicas share their waiting asks (Redis): this replica posts its
   * own, and the replica that gets a unit carries every replica's asks of the
   * table in its one query.
   */
  board?: Pick<AnalyticsBoard, 'post' | 'othersWaiting'>;
  /** With the board: reads what the replicas learned of the plan into `plan` (before each pick, and while asks wait). */
  adoptSharedPlan?(): Promise<void>;
}

/** How often asks waiting for a unit look for a table another replica fetched. */
const SHARED_POLL_MS = 250;

interface Waiter {
  need: Need;
  /** When it began to wait: only a table fetched since can answer it. */
  since: number;
  deadline: number;
  settled: boolean;
  settle(outcome: Delivery | Error): void;
}

interface Refresh {
  spec: TableSpec;
  demand: number;
  /** The fetchedAt of the table that asked for it: a newer one in the shared store means another replica refreshed it. */
  seenFetchedAt: number;
}

/** One unit's work: the asks it answers and the body that answers them all. */
interface Work {
  spec: TableSpec;
  waiters: Waiter[];
  body: DashboardQueryBody;
  window: ResolvedWindow;
  urls?: string[];
  unproven?: MetricName;
  cold: boolean;
  /** Asks of other replicas this body carries. */
  othersAsks: number;
  /** For a refresh: the fetchedAt of the table it replaces, and its demand. */
  seenFetchedAt?: number;
  demand?: number;
}

/**
 * Spends the reporting units of this process's tables. An ask that needs a
 * query waits here for the next unit within its deadline; when the unit
 * comes, one query answers every waiting ask of the same table (the union of
 * their urls and metrics), or refreshes the most demanded table, a share of
 * the units kept for the asks. When the next unit is, it learns from the
 * governor's own refusal (its `retryAfter`): a refused try costs no unit.
 */
export class UnitScheduler {
  /** Waiting asks by table key. */
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly refreshes = new Map<string, Refresh>();
  /** The earliest instant the governor may grant a unit, as its last refusal said; 0: try now. */
  private nextUnitAt = 0;
  private running = false;
  private closed = false;
  /** Units spent on cold queries (articles no table holds) and on whole tables (first fetches and refreshes): the cold share's count. */
  private coldUnits = 0;
  private tableUnits = 0;

  constructor(private readonly options: UnitSchedulerOptions) {}

  /** Resolves with the table fetched for this need, or rejects with the refusal once its deadline cannot be met. */
  wait(need: Need, deadline: number): Promise<Delivery> {
    const now = this.options.clock.now();
    if (this.nextUnitAt > deadline || deadline <= now) return Promise.reject(refused(Math.max(this.nextUnitAt, now) - now));
    return new Promise<Delivery>((resolve, reject) => {
      const waiter: Waiter = {
        need,
        since: now,
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

  /** A table in demand is refetched at a unit of its own (never more than one pending per table). */
  refresh(spec: TableSpec, demand: number, seenFetchedAt: number): void {
    this.refreshes.set(spec.key, { spec, demand, seenFetchedAt });
    this.start();
  }

  /** Stops after the current unit; asks still waiting get their refusal at their deadline. */
  close(): void {
    this.closed = true;
  }

  private retryAfterMs(): number {
    return Math.max(1_000, this.nextUnitAt - this.options.clock.now());
  }

  private enqueue(waiter: Waiter): void {
    const list = this.waiting.get(waiter.need.spec.key) ?? [];
    list.push(waiter);
    this.waiting.set(waiter.need.spec.key, list);
    this.reportWaiting(waiter.need.spec.key);
  }

  private remove(waiter: Waiter): void {
    const list = this.waiting.get(waiter.need.spec.key);
    if (list === undefined) return;
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.waiting.delete(waiter.need.spec.key);
    this.reportWaiting(waiter.need.spec.key);
  }

  /** To the metrics, and to the other replicas (what this replica waits for on the table now). */
  private reportWaiting(key: string): void {
    let count = 0;
    for (const list of this.waiting.values()) count += list.length;
    this.options.onWaiting?.(count);
    this.options.board?.post(key, (this.waiting.get(key) ?? []).map(postedNeed));
  }

  /** What the other replicas wait for, on the tables this replica has asks waiting for. */
  private async othersWaiting(): Promise<Map<string, PostedNeed[]>> {
    const board = this.options.board;
    const others = new Map<string, PostedNeed[]>();
    if (board === undefined) return others;
    await this.options.adoptSharedPlan?.();
    const now = this.options.clock.now();
    await Promise.all([...this.waiting.keys()].map(async (key) => others.set(key, await board.othersWaiting(key, now))));
    return others;
  }

  /** A refresh another replica (or a cold ask's whole table) already did: the shared store holds a newer table. */
  private async alreadyRefreshed(work: Work): Promise<boolean> {
    if (work.seenFetchedAt === undefined || this.options.lookup === undefined) return false;
    const table = await this.options.lookup({ spec: work.spec, metrics: [] });
    return table !== undefined && table.fetchedAt > work.seenFetchedAt;
  }

  private start(): void {
    if (this.running || this.closed) return;
    this.running = true;
    void this.run();
  }

  /** One unit per pass, or a sleep until the next one: bounded by the governor's rate. */
  private async run(): Promise<void> {
    try {
      while (!this.closed && (this.waiting.size > 0 || this.refreshes.size > 0)) {
        const waitMs = this.nextUnitAt - this.options.clock.now();
        if (waitMs > 0 && this.options.lookup !== undefined) {
          // Shared tables: another replica's unit may answer these asks before this replica gets one.
          await this.options.clock.sleep(Math.min(waitMs, SHARED_POLL_MS));
          await this.deliverShared(this.options.lookup);
          continue;
        }
        if (waitMs > 0) {
          this.refuseHopeless();
          await this.options.clock.sleep(waitMs);
          continue;
        }
        const work = this.pick(await this.othersWaiting());
        if (work === undefined) return;
        if (await this.alreadyRefreshed(work)) continue;
        await this.send(work);
      }
    } catch (error) {
      // Nothing awaited here should throw (the store and the board fall back on their own); if something does, no ask hangs.
      const failure = error instanceof Error ? error : new Error(`analytics scheduler: ${String(error)}`);
      for (const list of [...this.waiting.values()]) for (const waiter of [...list]) waiter.settle(failure);
      this.refreshes.clear();
    } finally {
      // In the same turn as the last look at the lists (no await in between): an ask enqueued a moment later starts a new run.
      this.running = false;
    }
  }

  /** Answers every waiting ask that a table in the shared store, fetched since it began to wait, covers. */
  private async deliverShared(lookup: (need: Need) => Promise<Table | undefined>): Promise<void> {
    // A metric another replica learned is outside the plan no longer holds an ask back: its field gets the error.
    await this.options.adoptSharedPlan?.();
    for (const list of [...this.waiting.values()]) {
      for (const waiter of [...list]) {
        const [first] = waiter.need.metrics;
        if (first !== undefined && waiter.need.metrics.every((metric) => this.options.plan.isUnavailable(metric))) {
          waiter.settle(metricUnavailable(first));
          continue;
        }
        const table = await lookup(waiter.need);
        if (table !== undefined && table.fetchedAt >= waiter.since && covers(table, waiter.need, this.options.plan)) {
          waiter.settle({ table, asks: 1, byAnotherReplica: true });
        }
      }
    }
  }

  /** Asks whose deadline comes before the next unit get their answer now rather than at their deadline. */
  private refuseHopeless(): void {
    for (const list of [...this.waiting.values()]) {
      for (const waiter of [...list]) if (waiter.deadline < this.nextUnitAt) waiter.settle(refused(this.retryAfterMs()));
    }
  }

  /**
   * Asks for a table that has nothing to serve them (not even stale numbers)
   * first; then cold asks while they are under their share (or nothing else
   * waits); otherwise the most demanded refresh.
   */
  private pick(others: Map<string, PostedNeed[]>): Work | undefined {
    if ([...this.waiting.values()].some((list) => list.some(needsWholeTable))) return this.askWork(others);
    const total = this.coldUnits + this.tableUnits;
    const coldTurn = this.refreshes.size === 0 || this.coldUnits <= this.options.coldShare * total;
    if (this.waiting.size > 0 && (coldTurn || this.refreshes.size === 0)) return this.askWork(others);
    const refresh = [...this.refreshes.values()].sort((a, b) => b.demand - a.demand)[0];
    if (refresh === undefined) return this.askWork(others);
    this.refreshes.delete(refresh.spec.key);
    const window = this.options.windowOf(refresh.spec, this.options.clock.now());
    const { metrics } = this.options.plan.queryMetrics(this.options.tableMetrics(refresh.spec));
    const body = tableQuery(refresh.spec, window, metrics, this.options.maxRows);
    return {
      spec: refresh.spec,
      waiters: [],
      body,
      window,
      cold: false,
      othersAsks: 0,
      seenFetchedAt: refresh.seenFetchedAt,
      demand: refresh.demand,
    };
  }

  /**
   * The table with the most asks waiting; every ask of it that one body can
   * carry, this replica's first, then the other replicas' (so whichever
   * replica gets the unit answers the cluster's asks of the table).
   */
  private askWork(others: Map<string, PostedNeed[]>): Work | undefined {
    const [key, list] =
      [...this.waiting.entries()].sort(
        (a, b) => Number(b[1].some(needsWholeTable)) - Number(a[1].some(needsWholeTable)) || b[1].length - a[1].length,
      )[0] ?? [];
    if (key === undefined || list === undefined || list.length === 0) return undefined;
    const spec = list[0].need.spec;
    const window = this.options.windowOf(spec, this.options.clock.now());
    const plan = this.options.plan;
    const ownMetrics = new Set(list.flatMap((waiter) => waiter.need.metrics));
    // Another replica's unproven metric rides only with an ask of this replica that wants it too:
    // an empty answer would otherwise cost this replica's asks their unit.
    const remote = (others.get(key) ?? []).filter((need) =>
      need.metrics.every((metric) => !plan.isUnproven(metric) || ownMetrics.has(metric)),
    );
    const { metrics, unproven } = plan.queryMetrics([
      ...this.options.tableMetrics(spec),
      ...ownMetrics,
      ...remote.flatMap((need) => need.metrics),
    ]);
    const optional = unproven === undefined ? {} : { unproven };
    const carried = (need: PostedNeed) => need.metrics.every((metric) => metrics.includes(metric) || plan.isUnavailable(metric));
    if (list.some(needsWholeTable) || remote.some((need) => need.urls === undefined)) {
      // A whole table answers every ask of it, those for single urls too (or tells them what it lacks).
      this.refreshes.delete(key);
      const body = tableQuery(spec, window, metrics, this.options.maxRows);
      // Of the other replicas' asks, only those for the whole table are surely answered by it.
      const othersAsks = remote.filter((need) => need.urls === undefined && carried(need)).length;
      return { spec, waiters: [...list], body, window, ...optional, cold: true, othersAsks };
    }
    const urls = new Set<string>();
    const fits = (needUrls: readonly string[]) => urls.size + needUrls.filter((url) => !urls.has(url)).length <= this.options.maxColdUrls;
    const waiters: Waiter[] = [];
    for (const waiter of list) {
      const needUrls = waiter.need.urls ?? [];
      if (!fits(needUrls) && waiters.length > 0) continue;
      for (const url of needUrls) urls.add(url);
      waiters.push(waiter);
    }
    let othersAsks = 0;
    for (const need of remote) {
      if (!carried(need) || !fits(need.urls ?? [])) continue;
      for (const url of need.urls ?? []) urls.add(url);
      othersAsks += 1;
    }
    const body = coldQuery(spec, window, [...urls], metrics);
    return { spec, waiters, body, window, urls: [...urls], ...optional, cold: true, othersAsks };
  }

  private async send(work: Work): Promise<void> {
    // Taken off the waiting list while in flight: asks arriving now wait for the next unit's query.
    for (const waiter of work.waiters) this.remove(waiter);
    try {
      const served = await this.options.reporting.query(work.body);
      this.nextUnitAt = 0;
      // A whole table fetched for asks counts with the refreshes: it is what a refresh would have brought.
      if (work.urls !== undefined) this.coldUnits += 1;
      else this.tableUnits += 1;
      const table = tabulate(served.value, {
        key: work.spec.key,
        from: work.window.from,
        to: work.window.to,
        fetchedAt: served.fetchedAt,
        limit: Math.min(work.body.limit ?? this.options.maxRows, this.options.maxRows),
        ...(work.urls === undefined ? {} : { urls: work.urls }),
      });
      this.options.plan.learnAvailable(table.metrics);
      await this.options.onTable(table);
      const live = work.waiters.filter((waiter) => !waiter.settled);
      // A whole table fetched for another ask lacks the articles a cold ask waits for: that ask waits for a unit of its own.
      const answered = live.filter((waiter) => waiter.need.urls === undefined || covers(table, waiter.need, this.options.plan));
      for (const waiter of live) if (!answered.includes(waiter)) this.enqueue(waiter);
      const asks = answered.length + work.othersAsks;
      this.options.onAnswered?.(asks);
      for (const waiter of answered) waiter.settle({ table, asks });
    } catch (error) {
      this.fail(work, error);
    }
  }

  private fail(work: Work, error: unknown): void {
    const live = work.waiters.filter((waiter) => !waiter.settled);
    if (isUpstreamError(error, 'budget_exhausted')) {
      // Not sent, no unit spent: the work waits for the unit the refusal names.
      this.nextUnitAt = this.options.clock.now() + (error.retryAfterSeconds ?? 1) * 1000;
      for (const waiter of live) this.enqueue(waiter);
      // A refused refresh keeps its place in the order, unless an ask renewed it meanwhile.
      if (!work.cold && !this.refreshes.has(work.spec.key)) {
        this.refreshes.set(work.spec.key, { spec: work.spec, demand: work.demand ?? 0, seenFetchedAt: work.seenFetchedAt ?? 0 });
      }
      return;
    }
    if (isUpstreamError(error, 'metric_unavailable') && work.unproven !== undefined) {
      // The one unproven metric was the cause; the asks wait for the next unit without it.
      this.options.plan.learnUnavailable(work.unproven);
      for (const waiter of live) {
        const rest = waiter.need.metrics.filter((metric) => !this.options.plan.isUnavailable(metric));
        if (rest.length === 0) waiter.settle(metricUnavailable(work.unproven));
        else this.enqueue(waiter);
      }
      return;
    }
    const failure = builtQueryFailure(error);
    for (const waiter of live) waiter.settle(failure);
  }
}

function postedNeed(waiter: Waiter): PostedNeed {
  const { urls, metrics } = waiter.need;
  return { ...(urls === undefined ? {} : { urls: [...urls] }), metrics: [...metrics], deadline: waiter.deadline };
}

/** An ask that needs the whole table has no table to be served from, fresh or stale. */
function needsWholeTable(waiter: Waiter): boolean {
  return waiter.need.urls === undefined;
}

/** Whether a table says every number the need asks for (a metric outside the plan has its answer: the error). */
function covers(table: Table, need: Need, plan: MetricPlan): boolean {
  const metrics = need.metrics.filter((metric) => !plan.isUnavailable(metric));
  if (!metrics.every((metric) => table.metrics.includes(metric))) return false;
  if (need.articles === undefined) return table.urls === 'all';
  return need.articles.every((url) => metrics.every((metric) => readCell(table, url, metric) !== undefined));
}
