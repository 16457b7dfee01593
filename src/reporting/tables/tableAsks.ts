import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../kernel/wire';
import type { Served } from '../../kernel/fetched';
import { type BudgetQueueOptions, type BudgetQueue, type AskKind, type Candidate, type QueuedAsk, type Turn } from '../budget/budgetQueue';
import type { ResolvedWindow } from '../dashboard/analyticsWindow';
import { MAX_PROMISED_MS, type AnalyticsBoard, type PostedNeed } from './analyticsBoard';
import { builtQueryFailure, metricUnavailable, refused, splitsOnEmptyBody, waitsForSlot } from '../budget/errors';
import type { MetricPlan } from '../budget/metricPlan';
import { claimantOf, LeftDemand, tableOfClaimant, type Left, type TableLeft } from './leftDemand';
import { SlotClaims } from './slotClaims';
import { readCell, tabulate, type Table } from './table';
import { narrowedQuery, specOfKey, tableQuery, type TableSpec } from './tableSpec';

/** What an ask needs fetched: the whole table, or the urls a full table lacks; and the metrics it reads. */
export interface Need {
  spec: TableSpec;
  /** Absent: the whole table. */
  urls?: readonly string[];
  metrics: readonly MetricName[];
  /** The articles the ask wants numbers of (absent: a ranking, any rows). */
  articles?: readonly string[];
}

/** The answer a waiting ask gets: the table its slot fetched and how many asks that one query answered. */
export interface Delivery {
  table: Table;
  asks: number;
  /** Fetched by another replica's slot (read from the shared store). */
  byAnotherReplica?: boolean;
}

export interface TableAsksOptions {
  /** The one queue for the reporting budget (src/reporting/reportingService.ts builds it once; tests their own). */
  queue: BudgetQueue;
  /** The protected endpoint, process-wide: its answer cache is read (`peek`) before an ask waits. */
  reporting: BudgetQueueOptions['reporting'];
  /** The metrics every table of the spec carries (those the plan allows); waiting asks add theirs. */
  tableMetrics(spec: TableSpec): MetricName[];
  /** The spec's window over the instants of now (relative windows aligned). */
  windowOf(spec: TableSpec, now: number): ResolvedWindow;
  /** REPORTING_MAX_ROWS: rows of a whole table. */
  maxRows: number;
  /** Most urls one narrowed query carries (ANALYTICS_CHUNK_SIZE, at most REPORTING_MAX_ROWS). */
  maxNarrowedUrls: number;
  /** Every fetched table goes here (the store) before the asks that waited for it are answered. */
  onTable(table: Table): Promise<void>;
  /**
   * Set when the tables are shared by replicas (Redis): what the shared store
   * holds now for a spec, so an ask waiting here is answered by a table
   * another replica fetched (checked every SHARED_POLL_MS while waiting).
   */
  lookup?(need: Need): Promise<Table | undefined>;
  /**
   * Set when replicas share their waiting asks (Redis): this replica posts its
   * own, and the replica that gets a slot carries every replica's asks of the
   * table in its one query.
   */
  board?: Pick<AnalyticsBoard, 'post' | 'othersWaiting' | 'claimSlot' | 'claimantsAt' | 'claimFetch' | 'releaseFetch'>;
  /** With the board: reads what the replicas learned of the plan into `plan` (before each pick, and while asks wait). */
  adoptSharedPlan?(): Promise<void>;
}

/** How often asks waiting for a slot look for a table another replica fetched. */
const SHARED_POLL_MS = 250;
/** Demand left is due a second before the slot it is owed: retryAfter is in whole seconds. */
const PROMISE_GRACE_MS = 1_000;
/** How many slots from the first a refusal may look through for one not promised to another table (MAX_PROMISED_MS bounds it too). */
const MOST_SLOTS_AHEAD = 4;
/**
 * The longest a replica's claim on a table's query holds (the board's `claimFetch`): past a query's attempts, timeouts
 * and backoff. It is released as soon as the query lands; a replica that dies mid-query holds the table this long.
 */
const FETCH_CLAIM_MS = 60_000;

/** A table ask waiting in the queue. */
type Waiter = QueuedAsk<Delivery> & { need: Need };

interface Refresh {
  spec: TableSpec;
  demand: number;
  /** Only feeds asked for it: their signals (it is withdrawn once all aborted). Absent: someone who cannot leave asked (a query). */
  askers?: Set<AbortSignal>;
  /** The fetchedAt of the table that asked for it: a newer one in the shared store means another replica refreshed it. */
  seenFetchedAt: number;
}

/** One slot's work: the asks it answers and the body that answers them all. */
interface Work {
  spec: TableSpec;
  waiters: Waiter[];
  body: DashboardQueryBody;
  window: ResolvedWindow;
  urls?: string[];
  unproven?: MetricName;
  /** Sent for asks (not a refresh nobody waits for). */
  forAsks: boolean;
  /** Asks of other replicas this body carries. */
  othersAsks: number;
  /** The other replicas' posted needs it surely answers (whole tables): once answered, not carried again while still posted. */
  othersCarried?: PostedNeed[];
  /** For a refresh: the fetchedAt of the table it replaces, and its demand. */
  seenFetchedAt?: number;
  demand?: number;
  /** For a refresh only feeds asked for: their signals, kept if the slot is refused. */
  askers?: Set<AbortSignal>;
  /** The demand refused asks left that this body carries (owed again if it is not answered). */
  left?: Left;
}

/** A query in flight: what it carries, and the delivery once answered (undefined: it was not). */
interface InFlight {
  work: Work;
  delivery: Promise<Delivery | undefined>;
}

/**
 * The tables' asks in the budget queue (src/reporting/budget/budgetQueue.ts): an ask
 * that needs a query waits there for the next slot within its deadline; its
 * merge rule is by table, url and metric (one query answers every waiting ask
 * of the same table: the union of their urls and metrics), and a table in
 * demand is refreshed at a slot of its own, a low-priority ask. The queue
 * decides which of them, or a dashboard, gets the slot.
 */
export class TableAsks implements AskKind {
  readonly name = 'table';
  readonly refusesHopeless: boolean;
  readonly pollMs = SHARED_POLL_MS;
  readonly poll?: (asks: readonly QueuedAsk[]) => Promise<void>;
  readonly queue: BudgetQueue;
  private readonly refreshes = new Map<string, Refresh>();
  /** What the other replicas waited for at the last look (beforeOrder), by table key. */
  private others = new Map<string, PostedNeed[]>();
  /** What asks refused with retryAfter left for the slot their refusal named. */
  private readonly left: LeftDemand;
  /** Which table each coming slot is promised to, on this replica (the cluster's is on the board, when there is one). */
  private readonly claims = new SlotClaims();
  /**
   * Other replicas' posted needs (by `promiseOf`) found answered (in the shared store, by this replica's slot, or by
   * the answer cache): not carried or offered again while their post still stands. Bounded.
   */
  private readonly answeredElsewhere = new Set<string>();
  /** This kind's asks waiting in the queue, as it last told (for the posts to the other replicas). */
  private waiting: readonly Waiter[] = [];
  /** The query in flight per table: an ask it carries (a retry arriving at its slot) waits for its answer. */
  private readonly inFlight = new Map<string, InFlight>();
  /** Tables whose query another replica has in flight, until the next look (by key): their work waits for its answer. */
  private readonly fetchingElsewhere = new Map<string, number>();

  constructor(private readonly options: TableAsksOptions) {
    this.queue = options.queue;
    this.left = new LeftDemand(options.maxNarrowedUrls);
    const lookup = options.lookup;
    this.refusesHopeless = lookup === undefined;
    if (lookup !== undefined) this.poll = (asks) => this.deliverShared(asks as Waiter[], lookup);
  }

  get plan(): MetricPlan {
    return this.queue.plan;
  }

  /**
   * Resolves with the table fetched for this need, or rejects with the refusal once its deadline cannot be met;
   * withdrawn (an AbortError) as soon as `signal` aborts: its asker left.
   */
  wait(need: Need, deadline: number, signal?: AbortSignal): Promise<Delivery> {
    // Enqueued in this turn when no query in flight carries it (the queue's order sees it at once).
    const queued = () =>
      this.queue.wait<Delivery>(this, need.spec.key, deadline, { need }, signal).catch(async (error: unknown) => {
        throw await this.leaveDemand(need, error, signal);
      });
    const flight = this.inFlight.get(need.spec.key);
    if (flight === undefined || !carries(flight.work, need)) return queued();
    // The query in flight for its table carries it (a retry arriving at its slot): its answer, if it covers the need.
    return flight.delivery.then((delivery) =>
      delivery !== undefined && covers(delivery.table, need, this.plan) ? { table: delivery.table, asks: delivery.asks + 1 } : queued(),
    );
  }

  /**
   * A query's ask refused for want of a slot leaves its need owed a slot,
   * and its refusal names that slot: the caller's retry at `retryAfter`
   * finds its numbers (issue 38, item 3). The slot: the first from the one
   * the budget will give asks outside the tables (`slotForOutsideAsks`; a
   * whole table's, the next one) that is not promised to another table
   * (`claimSlot`: one slot answers one table). A live feed's ask (`signal`)
   * leaves nothing: its feed asks again at the next refresh, and demand
   * leaves with its subscribers. What does not fit (LeftDemand's bounds, or
   * every slot within reach promised) keeps the budget's own refusal.
   */
  private async leaveDemand(need: Need, error: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    if (signal !== undefined || !waitsForSlot(error) || error.kind !== 'budget_exhausted') return error;
    const now = this.queue.clock.now();
    const from = need.urls === undefined ? now + (error.retryAfterSeconds ?? 0) * 1000 : this.queue.slotForOutsideAsks();
    // The whole table and the urls outside it claim a slot each: one query cannot carry both (claimantOf).
    const promisedAt = await this.claimSlot(claimantOf(need.spec.key, need.urls === undefined), from, now);
    if (promisedAt === undefined || !this.left.leave(need, now, promisedAt, promisedAt + this.queue.slotMs)) return error;
    this.postNeeds(need.spec.key);
    this.queue.start(this);
    return refused(promisedAt - now);
  }

  /** The first slot from `from` not promised to another table, promised to this one: the cluster's claim, else this replica's. */
  private async claimSlot(claimant: string, from: number, now: number): Promise<number | undefined> {
    const slotMs = this.queue.slotMs;
    const most = Math.max(1, Math.min(MOST_SLOTS_AHEAD, Math.floor((MAX_PROMISED_MS - (from - now)) / slotMs)));
    const shared = await this.options.board?.claimSlot(claimant, from, slotMs, most, now);
    if (shared !== undefined) return shared === false ? undefined : shared;
    return this.claims.claim(claimant, from, slotMs, most, now);
  }

  /**
   * A table in demand is refetched at a slot of its own (never more than one pending per table).
   * `asker`: the signal of who asked (a live feed), withdrawn once every such asker left; without one (a query's
   * reader, who cannot say it left), the refresh stays until its turn.
   */
  refresh(spec: TableSpec, demand: number, seenFetchedAt: number, asker?: AbortSignal): void {
    const pending = this.refreshes.get(spec.key);
    const askers =
      asker === undefined || (pending !== undefined && pending.askers === undefined) ? undefined : stillAsking(pending?.askers, asker);
    this.refreshes.set(spec.key, { spec, demand, seenFetchedAt, ...(askers === undefined ? {} : { askers }) });
    this.queue.start(this);
  }

  /** Stops after the current slot; asks still waiting get their refusal at their deadline. */
  close(): void {
    this.queue.close();
  }

  hasWork(): boolean {
    this.withdrawLeftRefreshes();
    return this.refreshes.size > 0 || this.left.keys(this.queue.clock.now()).length > 0;
  }

  /** The earliest slot demand left alone is owed and not yet due (less the grace `candidates` gives it). */
  workDueAt(): number | undefined {
    const now = this.queue.clock.now();
    const dueAt = this.left.all(now).map((left) => left.promisedAt - PROMISE_GRACE_MS);
    const later = [...dueAt, ...this.fetchingElsewhere.values()].filter((at) => at > now);
    return later.length === 0 ? undefined : Math.min(...later);
  }

  /** Refreshes whose every asker left are withdrawn before they take a slot: demand leaves with its subscribers. */
  private withdrawLeftRefreshes(): void {
    for (const [key, refresh] of this.refreshes) {
      if (refresh.askers !== undefined && [...refresh.askers].every((asker) => asker.aborted)) this.refreshes.delete(key);
    }
  }

  /** To the other replicas: what this replica waits for on the table now. */
  waitingChanged(asks: readonly QueuedAsk[], key: string): void {
    this.waiting = asks as Waiter[];
    this.postNeeds(key);
  }

  /** Posts this replica's needs of a table: its waiting asks and the demand refused asks left (owed a slot, whichever replica gets it). */
  private postNeeds(key: string): void {
    const board = this.options.board;
    if (board === undefined) return;
    const { whole, urls } = this.left.get(key, this.queue.clock.now());
    const needs = this.waiting.filter((waiter) => waiter.group === key).map(postedNeed);
    board.post(key, [...needs, ...[whole, urls].flatMap((left) => (left === undefined ? [] : [leftNeed(left)]))]);
  }

  /**
   * One candidate per table with asks waiting or demand left (unserved when one has nothing to serve it;
   * promised when demand left is owed this slot), and each refresh.
   */
  candidates(asks: readonly QueuedAsk[]): Candidate[] {
    const now = this.queue.clock.now();
    // Demand left alone takes no slot before the one it is owed: a slot freed earlier (the budget shared
    // again, its next slot forgotten) goes to the asks there are then, not to a race of every replica's
    // demand whose refused try would teach the next slot to the retry it was left for (issue 38 follow-up).
    const owedKeys = this.left.keys(now).filter((key) => {
      const { whole, urls } = this.left.get(key, now);
      return due(whole, now) || due(urls, now);
    });
    const byKey = new Map<string, Waiter[]>(owedKeys.map((key) => [key, []]));
    for (const waiter of asks as Waiter[]) byKey.set(waiter.group, [...(byKey.get(waiter.group) ?? []), waiter]);
    // A table another replica is fetching now is left to that query until the next look: its answer may serve it all.
    for (const [key, until] of this.fetchingElsewhere) if (until <= now) this.fetchingElsewhere.delete(key);
    const elsewhere = (key: string) => this.fetchingElsewhere.has(key);
    for (const key of [...byKey.keys()].filter(elsewhere)) byKey.delete(key);
    const candidates: Candidate[] = [...byKey].map(([key, list]) => {
      const { whole, urls } = this.left.get(key, now);
      const lefts = [whole, urls].flatMap((left) => left ?? []);
      const othersOwed = (this.others.get(key) ?? []).filter((need) => this.owedByOthers(key, need, now));
      // The urls' own slot is kept for them (this replica's or another's): the whole table's asks wait for theirs.
      const unserved = !urlsTurn({ whole, urls }, othersOwed, now) && (list.some(needsWholeTable) || whole !== undefined);
      // Another replica's urls owed this slot make it a promise too, this replica's own asks of the table beside them.
      const promised = lefts.some((left) => due(left, now)) || othersOwed.some((need) => need.urls !== undefined);
      const cls = unserved ? 'unserved' : promised ? 'promised' : 'outside';
      return {
        class: cls,
        weight: list.length + lefts.reduce((sum, left) => sum + left.asks, 0),
        earliestDeadline: Math.min(...lefts.map((left) => left.expiresAt), ...list.map((waiter) => waiter.deadline)),
        take: () => this.claimed(key, () => this.askWork(key, list, this.others.get(key) ?? []), cls === 'promised'),
      };
    });
    // Demand another replica's refused asks left, owed this slot: carried by whichever replica gets it.
    for (const [key, needs] of this.others) {
      const owed = (need: PostedNeed) => this.owedByOthers(key, need, now);
      if (byKey.has(key) || elsewhere(key) || !needs.some(owed)) continue;
      const cls = !urlsTurn({}, needs, now) && needs.some((need) => need.urls === undefined) ? 'unserved' : 'promised';
      candidates.push({
        class: cls,
        weight: needs.length,
        earliestDeadline: Math.min(...needs.map((need) => need.deadline)),
        take: () =>
          this.claimed(
            key,
            async () => {
              const turn = await this.askWork(key, [], needs);
              // Nothing of it for this replica to send (answered, or a metric it may not carry): not offered again.
              if (turn === undefined) for (const need of needs.filter(owed)) this.rememberAnswered(key, need);
              return turn;
            },
            cls === 'promised',
          ),
      });
    }
    this.withdrawLeftRefreshes();
    for (const refresh of this.refreshes.values()) {
      if (elsewhere(refresh.spec.key)) continue;
      candidates.push({
        class: 'refresh',
        weight: refresh.demand,
        earliestDeadline: Infinity,
        fetchedAt: refresh.seenFetchedAt,
        take: () => this.claimed(refresh.spec.key, () => this.refreshWork(refresh)),
      });
    }
    return candidates;
  }

  /** Another replica's demand left on a table, owed this slot and not answered yet. */
  private owedByOthers(key: string, need: PostedNeed, now: number): boolean {
    return dueNeed(need, now) && !this.answeredElsewhere.has(promiseOf(key, need));
  }

  /** What the other replicas wait for, on the tables this replica has asks waiting for (after reading what they learned of the plan). */
  async beforeOrder(asks: readonly QueuedAsk[]): Promise<void> {
    const board = this.options.board;
    const others = new Map<string, PostedNeed[]>();
    if (board !== undefined) {
      await this.options.adoptSharedPlan?.();
      const now = this.queue.clock.now();
      // The tables it asks, owes or refreshes: another replica's demand on them may be owed the next slot. And the
      // tables the cluster promised this slot to, whichever replica's refused asks they were: this replica may get the
      // slot, and then carries that promise before its own work (it used to send its own, and the retry was refused).
      const promised = (await board.claimantsAt(now, this.queue.slotMs)) ?? [];
      const keys = new Set([
        ...asks.map((ask) => ask.group),
        ...this.left.keys(now),
        ...this.refreshes.keys(),
        ...promised.map(tableOfClaimant),
      ]);
      await Promise.all([...keys].map(async (key) => others.set(key, await board.othersWaiting(key, now))));
    }
    this.others = others;
  }

  /** A refresh another replica (or an ask outside the table's whole table) already did: the shared store holds a newer table. */
  private async alreadyRefreshed(refresh: Refresh): Promise<boolean> {
    if (this.options.lookup === undefined) return false;
    const table = await this.options.lookup({ spec: refresh.spec, metrics: [] });
    return table !== undefined && table.fetchedAt > refresh.seenFetchedAt;
  }

  /** Answers every waiting ask that a table in the shared store, fetched since it began to wait, covers. */
  private async deliverShared(waiters: Waiter[], lookup: (need: Need) => Promise<Table | undefined>): Promise<void> {
    // A metric another replica learned is outside the plan no longer holds an ask back: its field gets the error.
    await this.options.adoptSharedPlan?.();
    for (const waiter of waiters) {
      if (waiter.settled) continue;
      const [first] = waiter.need.metrics;
      if (first !== undefined && waiter.need.metrics.every((metric) => this.plan.isUnavailable(metric))) {
        waiter.settle(metricUnavailable(first));
        continue;
      }
      const table = await lookup(waiter.need);
      if (table !== undefined && table.fetchedAt >= waiter.since && covers(table, waiter.need, this.plan)) {
        waiter.settle({ table, asks: 1, byAnotherReplica: true });
      }
    }
  }

  /**
   * With replicas (the board), a table's work is built only once this replica holds the claim on its query: while
   * another replica's query of it is in flight, its work waits for the next look (that answer, stored before the
   * claim ends, then serves it or shows it done), so that one query answers the cluster: a burst of slots used to
   * send the same table from two replicas at once. The claim ends when the turn's query lands, or at once when
   * there is nothing to send.
   *
   * A slot's promise (`promised`) is kept by waiting for that query instead: its replica is building it and has
   * not been granted the slot yet, and work of another table sent meanwhile could win the slot from it, refusing
   * the promised query and the retries it was promised to (issue 38 item 3: 50 % and 37 % by the first retry on
   * three replicas). Once the claim ends, the promise's work here finds it answered, or sends it.
   */
  private async claimed(key: string, work: () => Promise<Turn | undefined>, promised = false): Promise<Turn | undefined> {
    const board = this.options.board;
    if (board === undefined) return work();
    if (!(await (promised ? this.awaitFetchClaim(board, key) : board.claimFetch(key, FETCH_CLAIM_MS)))) {
      this.fetchingElsewhere.set(key, this.queue.clock.now() + SHARED_POLL_MS);
      return undefined;
    }
    const release = () => board.releaseFetch(key);
    let turn: Turn | undefined;
    try {
      turn = await work();
    } finally {
      if (turn === undefined) release();
    }
    return turn === undefined ? undefined : releasedAfter(turn, release);
  }

  /** The claim on a table's query, once another replica's ends (looked at every SHARED_POLL_MS, for FETCH_CLAIM_MS at most). */
  private async awaitFetchClaim(board: NonNullable<TableAsksOptions['board']>, key: string): Promise<boolean> {
    const clock = this.queue.clock;
    const until = clock.now() + FETCH_CLAIM_MS;
    for (;;) {
      if (await board.claimFetch(key, FETCH_CLAIM_MS)) return true;
      if (clock.now() >= until || this.queue.isClosed) return false;
      await clock.sleep(SHARED_POLL_MS);
    }
  }

  private async refreshWork(refresh: Refresh): Promise<Turn | undefined> {
    this.refreshes.delete(refresh.spec.key);
    if (await this.alreadyRefreshed(refresh)) return undefined;
    const window = this.options.windowOf(refresh.spec, this.queue.clock.now());
    const { metrics } = this.plan.queryMetrics(this.options.tableMetrics(refresh.spec));
    const body = tableQuery(refresh.spec, window, metrics, this.options.maxRows);
    // While its window has not moved, the answer cache holds the table's own numbers for the whole TTL, past the
    // half TTL a refresh is asked at: a slot would bring them back, and their write would be taken for a refresh.
    const cached = await this.options.reporting.peek?.(body);
    if (cached?.cache === 'hit' && cached.fetchedAt <= refresh.seenFetchedAt) return undefined;
    return this.turn({
      spec: refresh.spec,
      waiters: [],
      body,
      window,
      forAsks: false,
      othersAsks: 0,
      seenFetchedAt: refresh.seenFetchedAt,
      demand: refresh.demand,
      ...(refresh.askers === undefined ? {} : { askers: refresh.askers }),
    });
  }

  /**
   * The asks of one table: every ask of it that one body can carry, this
   * replica's first, then the demand refused asks left (owed a slot), then
   * the other replicas' asks (so whichever replica gets the slot answers the
   * cluster's asks of the table).
   */
  private async askWork(key: string, list: Waiter[], others: PostedNeed[]): Promise<Turn | undefined> {
    const now = this.queue.clock.now();
    // Another replica's query of the table may have landed since the last look (its claim just ended): what it answers goes.
    const lookup = this.options.lookup;
    if (lookup !== undefined && list.length > 0) await this.deliverShared(list, lookup);
    list = list.filter((waiter) => !waiter.settled);
    const owed = await this.stillOwed(key, now);
    // Of another replica's promise alone, the spec is its key's (the table may be unknown here).
    const spec = list[0]?.need.spec ?? owed.whole?.spec ?? owed.urls?.spec ?? this.refreshes.get(key)?.spec ?? specOfKey(key);
    if (spec === undefined) return undefined;
    others = await this.stillOwedByOthers(spec, others);
    if (list.length === 0 && owed.whole === undefined && owed.urls === undefined && others.length === 0) return undefined;
    // The slot promised to urls outside the table (and not to its whole table): their narrowed query, the whole
    // table's asks left for a slot of their own, or the whole table would take the urls' promised slot again.
    const forUrls = urlsTurn(owed, others, now);
    if (forUrls) {
      list = list.filter((waiter) => !needsWholeTable(waiter));
      others = others.filter((need) => need.urls !== undefined);
    }
    const leftNow = forUrls ? owed.urls : (owed.whole ?? owed.urls);
    const window = this.options.windowOf(spec, now);
    const plan = this.plan;
    const ownMetrics = new Set([...list.flatMap((waiter) => waiter.need.metrics), ...(leftNow?.metrics ?? [])]);
    // Another replica's unproven metric rides only with an ask of this replica that wants it too:
    // an empty answer would otherwise cost this replica's asks their slot.
    let remote = others.filter((need) => need.metrics.every((metric) => !plan.isUnproven(metric) || ownMetrics.has(metric)));
    const { metrics, unproven } = plan.queryMetrics([
      ...this.options.tableMetrics(spec),
      ...ownMetrics,
      ...remote.flatMap((need) => need.metrics),
    ]);
    const optional = unproven === undefined ? {} : { unproven };
    const carried = (need: PostedNeed) => need.metrics.every((metric) => metrics.includes(metric) || plan.isUnavailable(metric));
    const ownWhole = list.some(needsWholeTable) || leftNow?.whole === true;
    if (!ownWhole && remote.some((need) => need.urls === undefined)) {
      // Built only for the other replicas' posts: the answer cache may hold it (fetched at this replica's last slot,
      // its post still standing until that replica's next look). Served from there it spends no slot, and the asks
      // of this replica go on to a query of their own rather than waiting behind the same cached table again.
      const cached = await this.fromAnswerCache(spec, window, tableQuery(spec, window, metrics, this.options.maxRows), list);
      if (cached !== undefined) {
        for (const need of remote) if (need.urls === undefined) this.rememberAnswered(key, need);
        remote = remote.filter((need) => need.urls !== undefined);
        list = list.filter((waiter) => !waiter.settled);
      }
    }
    if (ownWhole || remote.some((need) => need.urls === undefined)) {
      // A whole table answers every ask of it, those for single urls too (or tells them what it lacks).
      this.refreshes.delete(key);
      const body = tableQuery(spec, window, metrics, this.options.maxRows);
      // Of the other replicas' asks, only those for the whole table are surely answered by it.
      const othersCarried = remote.filter((need) => need.urls === undefined && carried(need));
      // Demand left for the whole table goes with it; demand left for urls outside it waits for a narrowed query.
      const left = owed.whole === undefined ? undefined : this.takeLeft(owed.whole);
      return this.turn({
        spec,
        waiters: [...list],
        body,
        window,
        ...optional,
        forAsks: true,
        othersAsks: othersCarried.length,
        othersCarried,
        ...(left === undefined ? {} : { left }),
      });
    }
    const urls = new Set<string>();
    const fits = (needUrls: readonly string[]) =>
      urls.size + needUrls.filter((url) => !urls.has(url)).length <= this.options.maxNarrowedUrls;
    // At their promised slot, the urls owed go first: the waiting asks take what room is left.
    const promised = forUrls && owed.urls !== undefined ? this.takeLeft(owed.urls) : undefined;
    for (const url of promised?.urls ?? []) urls.add(url);
    const waiters: Waiter[] = [];
    for (const waiter of list) {
      const needUrls = waiter.need.urls ?? [];
      if (!fits(needUrls) && urls.size > 0) continue;
      for (const url of needUrls) urls.add(url);
      waiters.push(waiter);
    }
    const left =
      promised ?? (owed.urls !== undefined && (urls.size === 0 || fits([...owed.urls.urls])) ? this.takeLeft(owed.urls) : undefined);
    for (const url of left?.urls ?? []) urls.add(url);
    let othersAsks = 0;
    for (const need of remote) {
      if (!carried(need) || !fits(need.urls ?? [])) continue;
      for (const url of need.urls ?? []) urls.add(url);
      othersAsks += 1;
    }
    if (urls.size === 0) return undefined;
    const body = narrowedQuery(spec, window, [...urls], metrics);
    return this.turn({
      spec,
      waiters,
      body,
      window,
      urls: [...urls],
      ...optional,
      forAsks: true,
      othersAsks,
      ...(left === undefined ? {} : { left }),
    });
  }

  /**
   * The whole table `body` asks for, if the answer cache holds it (read alone: no slot): stored, and the asks of
   * `list` it covers answered. Undefined when the cache does not hold it.
   */
  private async fromAnswerCache(
    spec: TableSpec,
    window: ResolvedWindow,
    body: DashboardQueryBody,
    list: Waiter[],
  ): Promise<Table | undefined> {
    const cached = await this.options.reporting.peek?.(body);
    if (cached === undefined) return undefined;
    // A table the shared store holds already, as new or newer, is not replaced by the cache's older numbers.
    const need: Need = { spec, metrics: body.metrics };
    const held = await this.options.lookup?.(need);
    const table =
      held !== undefined && held.fetchedAt >= cached.fetchedAt && covers(held, need, this.plan)
        ? held
        : await this.store(spec, window, body, cached);
    const answered = list.filter((waiter) => !waiter.settled && covers(table, waiter.need, this.plan));
    for (const waiter of answered) waiter.settle({ table, asks: answered.length });
    return table;
  }

  /**
   * The demand left on a table, unless the shared store already holds numbers fetched for it since (another
   * replica's slot carried it): then it is forgotten, not sent again.
   */
  private async stillOwed(key: string, now: number): Promise<TableLeft> {
    const { whole, urls } = this.left.get(key, now);
    const [stillWhole, stillUrls] = await Promise.all([this.stillOwedLeft(whole), this.stillOwedLeft(urls)]);
    return { ...(stillWhole === undefined ? {} : { whole: stillWhole }), ...(stillUrls === undefined ? {} : { urls: stillUrls }) };
  }

  private async stillOwedLeft(left: Left | undefined): Promise<Left | undefined> {
    const lookup = this.options.lookup;
    if (left === undefined || lookup === undefined) return left;
    const urls = left.whole ? undefined : [...left.urls];
    const need: Need = { spec: left.spec, metrics: [...left.metrics], ...(urls === undefined ? {} : { urls, articles: urls }) };
    const table = await lookup(need);
    if (table === undefined || table.fetchedAt < left.since || !covers(table, need, this.plan)) return left;
    this.takeLeft(left);
    return undefined;
  }

  /** Demand left, taken for a slot's query (off the board while in flight). */
  private takeLeft(left: Left): Left | undefined {
    const taken = this.left.take(left);
    this.postNeeds(left.spec.key);
    return taken;
  }

  /** Its query was not answered: owed the next slot again (and posted again). */
  private restoreLeft(left: Left): void {
    this.left.restore(left);
    this.postNeeds(left.spec.key);
  }

  /**
   * Another replica's need that is answered already (a slot carried it, or the answer cache held it): remembered
   * here, so it is neither sent again nor offered again while that replica's post still names it.
   */
  private rememberAnswered(key: string, need: PostedNeed): void {
    if (this.answeredElsewhere.size >= 1_000) this.answeredElsewhere.clear();
    this.answeredElsewhere.add(promiseOf(key, need));
  }

  private async stillOwedByOthers(spec: TableSpec, others: PostedNeed[]): Promise<PostedNeed[]> {
    const lookup = this.options.lookup;
    const owed: PostedNeed[] = [];
    for (const need of others) {
      if (this.answeredElsewhere.has(promiseOf(spec.key, need))) continue;
      if (need.promisedAt !== undefined && lookup !== undefined) {
        const asked: Need = { spec, metrics: need.metrics, ...(need.urls === undefined ? {} : { urls: need.urls, articles: need.urls }) };
        const table = await lookup(asked);
        // Numbers fetched since its asks were refused (at most three slots before the slot it is owed) answer its retries.
        if (table !== undefined && table.fetchedAt >= need.promisedAt - 3 * this.queue.slotMs && covers(table, asked, this.plan)) {
          this.rememberAnswered(spec.key, need);
          continue;
        }
      }
      owed.push(need);
    }
    return owed;
  }

  private turn(work: Work): Turn {
    let delivered: (delivery: Delivery | undefined) => void = () => undefined;
    const flight: InFlight = { work, delivery: new Promise((resolve) => (delivered = resolve)) };
    this.inFlight.set(work.spec.key, flight);
    const landed = (delivery: Delivery | undefined) => {
      if (this.inFlight.get(work.spec.key) === flight) this.inFlight.delete(work.spec.key);
      delivered(delivery);
    };
    return {
      body: work.body,
      asks: work.waiters,
      // A whole table fetched for asks counts with the refreshes: it is what a refresh would have brought.
      share: work.urls === undefined ? 'table' : 'outside',
      answered: async (answer) => {
        const answered = await this.answered(work, answer).catch((error: unknown) => {
          landed(undefined);
          throw error;
        });
        landed(answered.delivery);
        return answered.asks;
      },
      slotRefused: () => {
        landed(undefined);
        if (work.left !== undefined) this.restoreLeft(work.left);
        // A refused refresh keeps its place in the order, unless an ask renewed it meanwhile.
        if (!work.forAsks && !this.refreshes.has(work.spec.key)) {
          this.refreshes.set(work.spec.key, {
            spec: work.spec,
            demand: work.demand ?? 0,
            seenFetchedAt: work.seenFetchedAt ?? 0,
            ...(work.askers === undefined ? {} : { askers: work.askers }),
          });
        }
      },
      failed: (error) => {
        landed(undefined);
        this.failed(work, error);
      },
    };
  }

  /** Stores the answer and settles the asks it answers: how many it answered, and the delivery (for asks joining it in flight). */
  private async answered(work: Work, served: Served<DashboardMetricResultWire[]>): Promise<{ asks: number; delivery?: Delivery }> {
    // A refresh answered with numbers no newer than the table's (a stale answer served while the cache revalidates) is none.
    if (!work.forAsks && work.seenFetchedAt !== undefined && served.fetchedAt <= work.seenFetchedAt) return { asks: 0 };
    const table = await this.store(work.spec, work.window, work.body, served, work.urls);
    // The other replicas' posts it answered stand until their next look: not carried again meanwhile.
    for (const need of work.othersCarried ?? []) this.rememberAnswered(work.spec.key, need);
    // A refresh asked for while this one was in flight saw the table it replaces: the new table answers it.
    const pending = this.refreshes.get(work.spec.key);
    if (work.urls === undefined && pending !== undefined && pending.seenFetchedAt < table.fetchedAt) this.refreshes.delete(work.spec.key);
    const live = work.waiters.filter((waiter) => !waiter.settled);
    // A whole table fetched for another ask lacks the articles an ask outside the table waits for: that ask waits for a slot of its own.
    const answered = live.filter((waiter) => waiter.need.urls === undefined || covers(table, waiter.need, this.plan));
    for (const waiter of live) if (!answered.includes(waiter)) this.queue.requeue(waiter);
    // The refused asks whose demand it carried are answered too: their retries find the numbers stored.
    const asks = answered.length + work.othersAsks + (work.left?.asks ?? 0);
    for (const waiter of answered) waiter.settle({ table, asks });
    return { asks, delivery: { table, asks } };
  }

  /** An answer tabulated, what it teaches of the plan learned, and stored (before the asks it answers are settled). */
  private async store(
    spec: TableSpec,
    window: ResolvedWindow,
    body: DashboardQueryBody,
    served: Served<DashboardMetricResultWire[]>,
    urls?: string[],
  ): Promise<Table> {
    const table = tabulate(served.value, {
      key: spec.key,
      from: window.from,
      to: window.to,
      fetchedAt: served.fetchedAt,
      limit: Math.min(body.limit ?? this.options.maxRows, this.options.maxRows),
      ...(urls === undefined ? {} : { urls }),
    });
    this.plan.learnAvailable(table.metrics);
    await this.options.onTable(table);
    return table;
  }

  private failed(work: Work, error: unknown): void {
    const live = work.waiters.filter((waiter) => !waiter.settled);
    if (splitsOnEmptyBody(error) && work.unproven !== undefined) {
      // The one unproven metric was the cause; the asks wait for the next slot without it.
      this.plan.learnUnavailable(work.unproven);
      if (work.left !== undefined) this.restoreLeft(work.left);
      for (const waiter of live) {
        const rest = waiter.need.metrics.filter((metric) => !this.plan.isUnavailable(metric));
        if (rest.length === 0) waiter.settle(metricUnavailable(work.unproven));
        else this.queue.requeue(waiter);
      }
      return;
    }
    const failure = builtQueryFailure(error);
    for (const waiter of live) waiter.settle(failure);
  }
}

/** Due: the slot its refusals named came (a second's grace: retryAfter is in whole seconds). */
function due(left: Left | undefined, now: number): left is Left {
  return left !== undefined && left.promisedAt <= now + PROMISE_GRACE_MS;
}

/** Another replica's demand left, owed this slot. */
function dueNeed(need: PostedNeed, now: number): boolean {
  return need.promisedAt !== undefined && need.promisedAt <= now + PROMISE_GRACE_MS;
}

/** Whether this slot is the one promised to a table's urls outside it (this replica's or another's), not to its whole table. */
function urlsTurn(owed: TableLeft, others: readonly PostedNeed[], now: number): boolean {
  const urlsDue = due(owed.urls, now) || others.some((need) => need.urls !== undefined && dueNeed(need, now));
  const wholeDue = due(owed.whole, now) || others.some((need) => need.urls === undefined && dueNeed(need, now));
  return urlsDue && !wholeDue;
}

/** The turn, its claim released once its query landed (answered and stored, refused a slot, or failed). */
function releasedAfter(turn: Turn, release: () => void): Turn {
  return {
    ...turn,
    answered: async (answer) => {
      try {
        return await turn.answered(answer);
      } finally {
        release();
      }
    },
    slotRefused: () => {
      release();
      turn.slotRefused?.();
    },
    failed: (error) => {
      release();
      turn.failed(error);
    },
  };
}

/** The askers of a refresh still there, with this one: the set stays as small as the feeds still asking. */
function stillAsking(askers: Set<AbortSignal> | undefined, asker: AbortSignal): Set<AbortSignal> {
  const live = new Set([...(askers ?? [])].filter((signal) => !signal.aborted));
  live.add(asker);
  return live;
}

/**
 * Names another replica's posted need of a table (its slot, deadline, urls and metrics: the same post read again
 * until that replica's next look), to remember it answered.
 */
function promiseOf(key: string, need: PostedNeed): string {
  return `${key}|${need.promisedAt ?? ''}|${need.deadline}|${(need.urls ?? []).join(' ')}|${need.metrics.join(' ')}`;
}

/** Demand left, as the other replicas see it: owed the slot at `promisedAt`, forgotten at its expiry. */
function leftNeed(left: Left): PostedNeed {
  return {
    ...(left.whole ? {} : { urls: [...left.urls] }),
    metrics: [...left.metrics],
    deadline: left.expiresAt,
    promisedAt: left.promisedAt,
  };
}

function postedNeed(waiter: Waiter): PostedNeed {
  const { urls, metrics } = waiter.need;
  return { ...(urls === undefined ? {} : { urls: [...urls] }), metrics: [...metrics], deadline: waiter.deadline };
}

/** An ask that needs the whole table has no table to be served from, fresh or stale. */
function needsWholeTable(waiter: Waiter): boolean {
  return waiter.need.urls === undefined;
}

/** Whether a query in flight asks for everything the need does (its answer may still lack an article: `covers` tells). */
function carries(work: Work, need: Need): boolean {
  if (!need.metrics.every((metric) => work.body.metrics.includes(metric))) return false;
  if (need.urls === undefined) return work.urls === undefined;
  return work.urls === undefined || need.urls.every((url) => work.urls?.includes(url) === true);
}

/** Whether a table says every number the need asks for (a metric outside the plan has its answer: the error). */
function covers(table: Table, need: Need, plan: MetricPlan): boolean {
  const metrics = need.metrics.filter((metric) => !plan.isUnavailable(metric));
  if (!metrics.every((metric) => table.metrics.includes(metric))) return false;
  if (need.articles === undefined) return table.urls === 'all';
  return need.articles.every((url) => metrics.every((metric) => readCell(table, url, metric) !== undefined));
}
