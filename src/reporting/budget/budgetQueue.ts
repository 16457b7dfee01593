import type { DashboardEndpoint, SlotBudget } from '../../upstream/endpoints/dashboard';
import type { SlotGrant } from '../../upstream/transport/httpClient';
import type { DashboardAnswer } from '../../kernel/fetched';
import type { DashboardQueryBody } from '../../kernel/wire';
import { safeObserver, type AskKindName, type Observer } from '../../kernel/observer';
import type { Clock } from '../../kernel/clock';
import { CallerSlots, type SharedCallerSlots } from './callerSlots';
import { refused, shareSpent, waitsForSlot } from './errors';
import type { MetricPlan } from './metricPlan';
import { nextRefresh, refreshDue } from './refreshTurns';

/**
 * The kinds of asks (the order they get the next budget slot in: see `order`):
 * - `unserved`: a table ask with nothing to serve it, not even stale numbers;
 * - `promised`: what asks refused with `retryAfter` left for the slot their refusal named, now due
 *   (their callers retry then: src/reporting/tables/leftDemand.ts);
 * - `outside`: asks for articles no table holds (merged by url and metric), within their share;
 * - `refresh`: a table in demand refetched before it expires (nobody waits for it);
 * - `dashboard`: a caller's ad-hoc dashboard body refused a slot (merged by metric), within its caller's share.
 */
export type AskClass = 'unserved' | 'promised' | 'outside' | 'refresh' | 'dashboard';

/** One ask waiting in the queue for a slot. */
export interface QueuedAsk<Outcome = unknown> {
  readonly kind: AskKind;
  /** Asks of one group may share one query (the kind's merge rule). */
  readonly group: string;
  /** When it began to wait. */
  readonly since: number;
  readonly deadline: number;
  /** Whose ad-hoc ask it is (`context.caller.id`): its slots count in that caller's fair share. Absent: the newsroom's shared work (tables). */
  readonly caller?: string;
  settled: boolean;
  /**
   * Carried by a query sent: its wait for a slot is over, so its deadline no longer refuses it (the slot the vendor
   * spent answers it, however late the answer comes within the upstream's timeout). Back on the list, it waits again.
   */
  inFlight: boolean;
  settle(outcome: Outcome | Error): void;
}

/** What one slot sends: the kind's merge of its asks, and what the kind does with the answer. */
export interface Turn {
  body: DashboardQueryBody;
  /** The asks it carries: off the list while in flight, back on it if the budget refuses the slot. */
  asks: QueuedAsk[];
  /** Which share each attempt its query makes counts in: the asks outside the tables', or the whole tables'; none for dashboards. */
  share?: 'outside' | 'table';
  /** Settles the asks the answer serves; how many asks it answered (this replica's and others'). */
  answered(answer: DashboardAnswer): Promise<number>;
  /** The budget had no slot after all (another replica took it, or a 429 paused it): the kind puts back what it keeps outside the list (a refresh). */
  slotRefused?(): void;
  /** Any other failure: the kind's rule (split a merged body, learn the plan, or fail its asks). */
  failed(error: unknown): void;
}

/** A group of asks (or a refresh) one slot could answer, as a kind offers it to the queue's order. */
export interface Candidate {
  class: AskClass;
  /** Within a class, more first: the asks it answers (or a refresh's demand). */
  weight: number;
  /** Within a class and weight, the earliest deadline first. */
  earliestDeadline: number;
  /** A refresh: when the numbers it replaces were fetched (their age bounds its turn: src/reporting/budget/refreshTurns.ts). */
  fetchedAt?: number;
  /** The kind's merge rule: the turn for this group now (undefined: nothing to send after all, e.g. another replica did it). */
  take(): Promise<Turn | undefined>;
}

/** A kind of ask: its merge rule and what it keeps besides waiting asks. */
export interface AskKind {
  /** Its name for the observer. */
  readonly name: AskKindName;
  /** Its asks are refused as soon as the slot falls past their deadline (not while another replica may still answer them). */
  readonly refusesHopeless: boolean;
  /** Reads, before each order, what its turn will need (the other replicas' waiting asks). */
  beforeOrder?(asks: readonly QueuedAsk[]): Promise<void>;
  /** What it could send now, for the queue's order. */
  candidates(asks: readonly QueuedAsk[]): Candidate[];
  /** Whether it has work besides waiting asks (a refresh). */
  hasWork?(): boolean;
  /**
   * When work it holds but may not send yet becomes due (demand refused asks left for a later slot):
   * with nothing to send before, the queue sleeps until then, or until an ask arrives.
   */
  workDueAt?(): number | undefined;
  /** While no slot is free: how often it looks for answers elsewhere (tables other replicas fetched), and the look. */
  pollMs?: number;
  poll?(asks: readonly QueuedAsk[]): Promise<void>;
  /** Its waiting asks changed (posted to the other replicas, counted by metrics). */
  waitingChanged?(asks: readonly QueuedAsk[], group: string): void;
}

export interface BudgetQueueOptions {
  /**
   * The protected endpoint, process-wide: it caches and coalesces; the queue decides what to send and when, and
   * grants each HTTP attempt its slot.
   * `peek`: its answer cache read alone (no upstream call), read before a dashboard is held back or refused.
   * `budget`: the reporting budget's bucket in the rate store (the local one, or the replicas' Redis one): when the
   * next slot is, and each attempt's slot.
   */
  reporting: Pick<DashboardEndpoint, 'query'> & Partial<Pick<DashboardEndpoint, 'peek'>> & { budget: SlotBudget };
  clock: Clock;
  /** ANALYTICS_COLD_SHARE: the share of the tables' slots kept for asks outside the tables while refreshes wait. */
  outsideShare: number;
  /** What the account's plan allows, learned from every answer of every kind (the reporting service's one plan). */
  plan: MetricPlan;
  /** Hears the asks waiting, refused and answered per slot, and the tables fetched (the metrics; tests record it). */
  observer: Observer;
  /**
   * The fair share (DASHBOARD_SHARE_PER_CALLER of the slots over DASHBOARD_SHARE_WINDOW_SECONDS): the most slots
   * one caller's asks may spend over `windowMs`. Absent: no caller is limited (a queue of one kind, in tests).
   */
  callerShare?: CallerShare;
  /**
   * The callers' slots as every replica spent them (REDIS_URL): the fair share is the cluster's, not each
   * replica's. Absent, or when it cannot tell (Redis away), the queue counts this replica's own.
   */
  sharedCallerSlots?: SharedCallerSlots;
  /**
   * REPORTING_RATE_PER_MINUTE: the slots a minute the budget has, which bound how long a table in demand
   * waits for its refresh (src/reporting/budget/refreshTurns.ts). Default 1, the real hosts' budget.
   */
  slotsPerMinute?: number;
}

/** The refusal of an ask whose asker left (its signal aborted): nobody reads it, but its promise settles. */
function withdrawn(): Error {
  const error = new Error('the ask was withdrawn: its asker left');
  error.name = 'AbortError';
  return error;
}

/** The slots one caller's ad-hoc asks may spend over a window (see `callerShareOf`). */
export interface CallerShare {
  slotsPerCaller: number;
  windowMs: number;
}

/**
 * DASHBOARD_SHARE_PER_CALLER of the slots the governor grants over the window
 * (REPORTING_RATE_PER_MINUTE of them a minute), rounded down, at least one:
 * a share of the budget, not of what happened to be spent, so a caller's first
 * ask on a quiet budget is not refused for being all of it.
 */
export function callerShareOf(share: number, windowSeconds: number, slotsPerMinute: number): CallerShare {
  return { slotsPerCaller: Math.max(1, Math.floor(share * slotsPerMinute * (windowSeconds / 60))), windowMs: windowSeconds * 1000 };
}

/**
 * The one queue for the reporting budget, and the only thing that grants its
 * slots: every ask that found no slot waits here, whatever its kind. It reads
 * when the next slot is from the budget's bucket in the rate store (a look
 * that takes nothing), grants each HTTP attempt of the queries it sends its
 * slot there (`grant`: a retry or the repeat after a 401 is an attempt of its
 * own, counted in the shares as the vendor counts it; an answer from the
 * cache reaches no attempt and spends nothing), and owns the deadlines and
 * the refusals with retryAfter, re-queueing after a refusal, what the plan
 * allows, and the order between kinds of asks (`order`). Each kind brings
 * only its merge rule (`AskKind`): dashboard bodies merge by metric, table
 * asks by url and metric, refreshes are low-priority.
 */
export class BudgetQueue {
  readonly plan: MetricPlan;
  readonly clock: Clock;
  readonly observer: Observer;
  private readonly waiting: QueuedAsk[] = [];
  private readonly kinds = new Set<AskKind>();
  /**
   * When the next slot is, as the budget's bucket said at its last read (each pass of the loop reads it, a refused
   * grant says it too); 0: now, or unknown since a slot was granted. What deadlines and refusals are measured against.
   */
  private slotSeenAt = 0;
  private running = false;
  private closed = false;
  /** Attempts granted to asks outside the tables, and to whole tables (first fetches and refreshes): the outside share's count. */
  private outsideSlots = 0;
  private tableSlots = 0;
  /** Attempts each caller's ad-hoc asks were granted over the share's window (the fair share's count: nothing beside the queue counts them). */
  private readonly callerSlots: CallerSlots | undefined;
  /** Ends the run loop's current sleep early (an ask arrived, the budget is shared again, or the queue closes). */
  private wake: (() => void) | undefined;
  /** The loop sleeps with nothing to send until work comes due (`workDueAt`): an arriving ask wakes it. */
  private idle = false;
  /**
   * The loop waits for its next look after a pass without progress: an arriving ask (new work) wakes it, a kind's
   * `start` does not (what a pass writes may start it again: that would be the same pass again).
   */
  private stalled = false;
  private readonly stopListening: (() => void) | undefined;

  constructor(private readonly options: BudgetQueueOptions) {
    this.plan = options.plan;
    this.clock = options.clock;
    this.observer = safeObserver(options.observer);
    const share = options.callerShare;
    this.callerSlots = share === undefined ? undefined : new CallerSlots(share.slotsPerCaller, share.windowMs);
    // The budget is shared again (Redis back): a slot read from this replica's small local share no longer holds.
    this.stopListening = options.reporting.budget.onSharedAgain(() => {
      this.slotSeenAt = 0;
      this.wake?.();
    });
  }

  /**
   * Sends a caller's ad-hoc ask at once, outside the queue's order (it may
   * find a slot free, or its answer cached): its attempts are granted a slot
   * only if one is free now (never held for one: the asks that wait, wait
   * here), each counted in its caller's share; refused, it waits in the order.
   * Two rules come first, so the ask never spends a slot it may not have:
   * - over its caller's fair share, it is refused at once (`shareSpent`, with
   *   retryAfter), before any try at the endpoint, and never waits here;
   * - while other asks wait here (the newsroom's, or other callers'), or a
   *   refresh goes before dashboards, it does not try: it waits in the
   *   order, behind them (issue 28: a greedy caller took 5 of 6 slots so).
   * Neither rule holds back an answer the cache has: before either refuses,
   * the answer cache is read alone (`peek`: no upstream call, no slot), and a
   * cached answer is served (a cached answer costs nothing, docs/security.md).
   */
  async tryNow(kind: AskKind, body: DashboardQueryBody, caller: string): Promise<DashboardAnswer> {
    // Only with a shared ledger: without one, the try starts in this turn, as it always did.
    if (this.options.sharedCallerSlots !== undefined) await this.learnSharedSlots([caller]);
    const shareRefusal = this.shareRefusal(caller);
    if (shareRefusal !== undefined) return this.cachedOr(body, () => this.refuseOverShare(kind, caller, shareRefusal));
    if (this.othersWait(kind)) {
      const refusal = refused(await this.readSlot());
      return this.cachedOr(body, () => refusal);
    }
    return this.options.reporting.query(body, this.grant({ callers: [caller] }));
  }

  /**
   * The grant of each HTTP attempt a query makes (CallOptions.grant): a slot
   * from the budget's bucket, within the attempt's wait (a first attempt: a
   * slot free now; a retry: within its call's time), counted in the shares
   * when granted, as the vendor counts attempts: the callers' fair share, the
   * outside or the tables' share. Refused, it says when the next slot is.
   */
  private grant(counts: { callers: readonly string[]; share?: Turn['share']; granted?: () => void }): SlotGrant {
    return async (where, maxWaitMs) => {
      try {
        await this.options.reporting.budget.take(where, maxWaitMs ?? 0);
      } catch (error) {
        if (waitsForSlot(error)) this.slotSeenAt = this.clock.now() + (error.retryAfterSeconds ?? 1) * 1000;
        throw error;
      }
      this.slotSeenAt = 0;
      if (counts.share === 'outside') this.outsideSlots += 1;
      else if (counts.share === 'table') this.tableSlots += 1;
      counts.granted?.();
      this.chargeCallers(counts.callers);
    };
  }

  /** How long until the budget's next slot (0: now), read from its bucket without taking it. */
  private async readSlot(): Promise<number> {
    const untilMs = await this.options.reporting.budget.freeInMs();
    this.slotSeenAt = untilMs > 0 ? this.clock.now() + untilMs : 0;
    return untilMs;
  }

  /**
   * Reads what every replica's callers spent (the shared ledger) into this
   * replica's ledger, where the queue awaits anyway: its decisions stay
   * synchronous. Without a shared ledger, or while it cannot tell, nothing
   * changes (each replica counts its own).
   */
  private async learnSharedSlots(callers: readonly string[]): Promise<void> {
    const ledger = this.callerSlots;
    const shared = this.options.sharedCallerSlots;
    if (ledger === undefined || shared === undefined) return;
    const now = this.clock.now();
    const distinct = [...new Set(callers)];
    const [spent, ...charges] = await Promise.all([shared.slotsSpent(now), ...distinct.map((caller) => shared.chargesOf(caller, now))]);
    if (spent !== undefined) ledger.learnSpent(spent, now);
    distinct.forEach((caller, index) => {
      const learned = charges[index];
      if (learned !== undefined) ledger.learnCaller(caller, learned);
    });
  }

  /** The cached answer of `body` if the cache has one (read alone: nothing spent), else the refusal `refuse` gives. */
  private async cachedOr(body: DashboardQueryBody, refuse: () => Error): Promise<DashboardAnswer> {
    const cached = await this.options.reporting.peek?.(body);
    if (cached !== undefined) return cached;
    throw refuse();
  }

  /** Over its share, the caller's ask (a miss) is refused at once, told to the observer: nobody else waits for it. */
  private refuseOverShare(kind: AskKind, caller: string, refusal: Error): Error {
    this.observer.askRefused(kind.name, 'share');
    this.observer.callerAskRefused(caller);
    return refusal;
  }

  /** The refusal of a caller with no room for a whole slot in its share now (undefined: it has room). */
  private shareRefusal(caller: string): Error | undefined {
    if (this.callerSlots === undefined) return undefined;
    const now = this.clock.now();
    const roomAt = this.callerSlots.roomAt(caller, now);
    return roomAt > now ? shareSpent(roomAt - now) : undefined;
  }

  /**
   * Work waits for a slot the order would give it before this kind's ask:
   * asks waiting here (they came first), or a refresh unless the dashboards
   * may still go before refreshes (`dashboardsBeforeRefreshes`).
   */
  private othersWait(kind: AskKind): boolean {
    if (this.waiting.length > 0) return true;
    const refreshes = [...this.kinds].some((other) => other !== kind && other.hasWork?.() === true);
    return refreshes && !this.dashboardsBeforeRefreshes();
  }

  /**
   * Callers' dashboards go before refreshes only while all callers' dashboards
   * together spent less than one caller's share over the window: a caller gets
   * its share even while refreshes always wait (at one slot a minute they do),
   * and however many callers there are, the refreshes keep all the rest.
   */
  private dashboardsBeforeRefreshes(): boolean {
    return this.callerSlots?.roomForAll(this.clock.now()) ?? false;
  }

  /** An attempt was granted to the asks of these callers: each is charged its part (a merged query's slot is split between them). */
  private chargeCallers(callers: readonly string[]): void {
    const distinct = [...new Set(callers)];
    if (distinct.length === 0) return;
    const now = this.clock.now();
    for (const caller of distinct) this.observer.callerSlotsSpent(caller, 1 / distinct.length);
    const ledger = this.callerSlots;
    if (ledger !== undefined) {
      const slot = ledger.charge(distinct, now);
      // Written for the other replicas in the background; until it is there, this replica counts it beside what it reads.
      void this.options.sharedCallerSlots?.record(slot).then((held) => held && ledger.shared(slot.id));
    }
    // A caller's share fills only when it is charged: its asks still waiting are refused now, not at their deadline.
    this.refuseWaitingOverShare();
  }

  /** Waiting asks whose caller's share filled while they waited (its other asks took slots) get the share's refusal now. */
  private refuseWaitingOverShare(): void {
    for (const ask of [...this.waiting]) {
      if (ask.caller === undefined || ask.settled) continue;
      const refusal = this.shareRefusal(ask.caller);
      if (refusal === undefined) continue;
      this.observer.askRefused(ask.kind.name, 'share');
      this.observer.callerAskRefused(ask.caller);
      ask.settle(refusal);
    }
  }

  /**
   * Waits for a slot: resolves with what the kind settles it with, or rejects with the refusal once its deadline cannot be met.
   * `signal`: the asker left (a live feed's last subscriber): the ask is withdrawn at once, before it takes a slot (a turn
   * already in flight carries it no more), and rejects with an AbortError; nothing of it stays (its deadline's timer is cleared).
   */
  wait<Outcome>(kind: AskKind, group: string, deadline: number, extra: object = {}, signal?: AbortSignal): Promise<Outcome> {
    if (signal?.aborted === true) return Promise.reject(withdrawn());
    const now = this.clock.now();
    if (this.slotSeenAt > deadline || deadline <= now) return Promise.reject(this.refusal(kind));
    return new Promise<Outcome>((resolve, reject) => {
      // Cleared when the ask settles, however: a settled ask holds no timer until its deadline.
      const timer = new AbortController();
      const withdraw = () => ask.settle(withdrawn());
      const ask: QueuedAsk<Outcome> = Object.assign(extra, {
        kind,
        group,
        since: now,
        deadline,
        settled: false,
        inFlight: false,
        settle: (outcome: Outcome | Error) => {
          if (ask.settled) return;
          ask.settled = true;
          this.remove(ask);
          timer.abort();
          signal?.removeEventListener('abort', withdraw);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        },
      });
      signal?.addEventListener('abort', withdraw, { once: true });
      this.enqueue(ask);
      void this.clock.sleep(deadline - now, timer.signal).then(() => this.refuse(ask));
      if (this.stalled) this.wake?.();
      this.start();
    });
  }

  /** Puts an ask back on the list (its query did not answer it): it waits for a later slot within its deadline, if any is left. */
  requeue(ask: QueuedAsk): void {
    ask.inFlight = false;
    if (ask.settled) return;
    if (ask.deadline <= this.clock.now()) this.refuse(ask);
    else this.enqueue(ask);
  }

  /** A kind with work besides asks (a refresh) wakes the queue. */
  start(kind?: AskKind): void {
    if (kind !== undefined) this.kinds.add(kind);
    if (this.running && this.idle) this.wake?.();
    if (this.running || this.closed) return;
    this.running = true;
    void this.run();
  }

  /** The time between two slots of the budget (REPORTING_RATE_PER_MINUTE a minute). */
  get slotMs(): number {
    return 60_000 / (this.options.slotsPerMinute ?? 1);
  }

  /**
   * The slot an ask outside the tables refused now will get, for its
   * refusal's `retryAfter` (and the demand it leaves owed that slot): the next
   * slot while such asks are within their share of the tables' slots
   * (ANALYTICS_COLD_SHARE), else the first after it where they are, the slots
   * between going to refreshes (at most two slots later: the share is a
   * long-run rule, not a debt to pay off at once).
   */
  slotForOutsideAsks(): number {
    const next = Math.max(this.slotSeenAt, this.clock.now());
    const share = this.options.outsideShare;
    let later = 0;
    while (later < 2 && this.outsideSlots > share * (this.outsideSlots + this.tableSlots + later)) later += 1;
    return next + later * this.slotMs;
  }

  /** Closed: no slot is taken any more (a kind holding a pass stops waiting). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Stops after the current slot; asks still waiting get their refusal at their deadline. */
  close(): void {
    this.closed = true;
    this.stopListening?.();
    this.wake?.();
  }

  /** The refusal an ask of `kind` gets when no slot comes within its deadline (told to the observer): `budget_exhausted`, with its seconds until the slot. */
  private refusal(kind: AskKind): Error {
    this.observer.askRefused(kind.name, 'deadline');
    return refused(Math.max(1_000, this.slotSeenAt - this.clock.now()));
  }

  private refuse(ask: QueuedAsk): void {
    if (!ask.settled && !ask.inFlight) ask.settle(this.refusal(ask.kind));
  }

  private enqueue(ask: QueuedAsk): void {
    this.kinds.add(ask.kind);
    this.waiting.push(ask);
    this.waitingChanged(ask);
  }

  private remove(ask: QueuedAsk): void {
    const index = this.waiting.indexOf(ask);
    if (index < 0) return;
    this.waiting.splice(index, 1);
    this.waitingChanged(ask);
  }

  private waitingChanged(ask: QueuedAsk): void {
    const asks = this.asksOf(ask.kind);
    this.observer.asksWaiting(ask.kind.name, asks.length);
    ask.kind.waitingChanged?.(asks, ask.group);
  }

  private asksOf(kind: AskKind): QueuedAsk[] {
    return this.waiting.filter((ask) => ask.kind === kind);
  }

  private hasWork(): boolean {
    return this.waiting.length > 0 || [...this.kinds].some((kind) => kind.hasWork?.() === true);
  }

  /** One slot per pass, or a sleep until the next one: bounded by the budget's rate, read from its bucket each pass. */
  private async run(): Promise<void> {
    try {
      while (!this.closed && this.hasWork()) {
        const waitMs = await this.readSlot();
        if (waitMs > 0) {
          this.refuseHopeless();
          if (!this.hasWork()) return;
          const polling = [...this.kinds].filter((kind) => kind.poll !== undefined && this.asksOf(kind).length > 0);
          const pollMs = Math.min(waitMs, ...polling.map((kind) => kind.pollMs ?? waitMs));
          await this.pause(pollMs);
          // Shared tables: another replica's slot may answer these asks before this replica gets one.
          for (const kind of polling) await kind.poll?.(this.asksOf(kind));
          continue;
        }
        // The kinds read what they need for their turn first (what other replicas wait for): asks arriving meanwhile join the order.
        for (const kind of this.kinds) await kind.beforeOrder?.(this.asksOf(kind));
        // What the other replicas' callers spent: a waiting caller's share, and whether dashboards go before refreshes.
        if (this.options.sharedCallerSlots !== undefined)
          await this.learnSharedSlots(this.waiting.flatMap((ask) => (ask.caller === undefined ? [] : [ask.caller])));
        this.refuseWaitingOverShare();
        const candidate = this.order();
        if (candidate === undefined) {
          const dueAt = Math.min(...[...this.kinds].map((kind) => kind.workDueAt?.() ?? Infinity));
          if (!Number.isFinite(dueAt)) return;
          this.idle = true;
          await this.pause(Math.max(0, dueAt - this.clock.now()));
          this.idle = false;
          continue;
        }
        const turn = await candidate.take();
        if (turn === undefined) continue;
        const progressed = await this.spend(turn, candidate.kind);
        // The guard (issue 35): a pass that spent no slot and settled none of its asks (an answer from the cache
        // that answered nothing here) would be the same pass again at once. It waits for its next look instead.
        if (!progressed) {
          this.stalled = true;
          await this.pause(this.nextLookMs());
          this.stalled = false;
        }
      }
    } catch (error) {
      // Nothing awaited here should throw (the stores and the board fall back on their own); if something does, no ask hangs.
      const failure = error instanceof Error ? error : new Error(`reporting budget queue: ${String(error)}`);
      for (const ask of [...this.waiting]) ask.settle(failure);
    } finally {
      // In the same turn as the last look at the list (no await in between): an ask enqueued a moment later starts a new run.
      this.running = false;
    }
  }

  /**
   * Who gets the next slot, in one place. The newsroom first (issue 28 item 4):
   * 0. what refused asks outside the tables left for this slot, promised to
   *    their retries (`promised`): a slot is promised to one table only, for
   *    the cluster (src/reporting/tables/slotClaims.ts), and the promise is
   *    kept: the retry comes at that slot, and finds its numbers (issue 38,
   *    item 3). Their slots are within the outside share (`slotForOutsideAsks`);
   * 1. a refresh that would be written past its bound, ⌈N / B⌉ + 1 minutes
   *    for N tables (in demand, or waiting for their first fetch) at B slots a
   *    minute, if this slot went to a table's first fetch (`refreshDue`);
   *    then table asks with nothing to serve them (not even stale numbers);
   * 2. asks outside the tables while under their share of the tables' slots
   *    (or when no refresh waits);
   * 3. callers' ad-hoc dashboard asks, while all callers' dashboards spent
   *    less than one caller's share over the window (`dashboardsBeforeRefreshes`);
   * 4. refreshes: the most demanded first, unless that would leave another
   *    table in demand unrefreshed past its bound (then the oldest: `nextRefresh`);
   * 5. asks outside the tables over their share;
   * 6. callers' ad-hoc dashboard asks.
   * Only asks of callers within their own fair share are ever here (the
   * others are refused at once: `tryNow`, `refuseWaitingOverShare`). Within a class,
   * the group answering the most asks, then the earliest deadline.
   * Dashboards used to come first: their query went UPSTREAM_QUEUE_TIMEOUT_MS
   * before the slot and the governor held the slot for it, so the tables'
   * asks and refreshes lost every slot to one caller. First fetches used to
   * come before every refresh: while new tables kept arriving, the tables in
   * demand aged past their bound.
   */
  private order(): (Candidate & { kind: AskKind }) | undefined {
    const candidates = [...this.kinds].flatMap((kind) => kind.candidates(this.asksOf(kind)).map((candidate) => ({ ...candidate, kind })));
    const best = (cls: AskClass) =>
      candidates
        .filter((candidate) => candidate.class === cls)
        .sort((a, b) => b.weight - a.weight || a.earliestDeadline - b.earliestDeadline)[0];
    const refreshes = candidates
      .filter((candidate) => candidate.class === 'refresh')
      .map((candidate) => ({ ...candidate, fetchedAt: candidate.fetchedAt ?? 0 }));
    const waitingFirst = candidates.filter((candidate) => candidate.class === 'unserved').length;
    const now = this.clock.now();
    const slotsPerMinute = this.options.slotsPerMinute ?? 1;
    const total = this.outsideSlots + this.tableSlots;
    const outsideTurn = refreshes.length === 0 || this.outsideSlots <= this.options.outsideShare * total;
    const dashboardsFirst = this.dashboardsBeforeRefreshes();
    return (
      best('promised') ??
      refreshDue(refreshes, waitingFirst, now, slotsPerMinute) ??
      best('unserved') ??
      (outsideTurn ? best('outside') : undefined) ??
      (dashboardsFirst ? best('dashboard') : undefined) ??
      nextRefresh(refreshes, waitingFirst, now, slotsPerMinute) ??
      best('outside') ??
      best('dashboard')
    );
  }

  /**
   * Sleeps until the next look, or until the budget shared again (or `close`, or an arriving ask) wakes the loop. A plain
   * sleep: one woken early stays armed until its time (test/reporting/support/clusterClock.ts tells the loop's
   * pause from an ask's deadline by it being plain).
   */
  private async pause(ms: number): Promise<void> {
    await Promise.race([this.clock.sleep(ms), new Promise<void>((resolve) => (this.wake = resolve))]);
    this.wake = undefined;
  }

  /** Until the next look after a pass without progress: the kinds' next look at the other replicas, else the next slot. */
  private nextLookMs(): number {
    const polls = [...this.kinds].flatMap((kind) => (kind.poll === undefined || kind.pollMs === undefined ? [] : [kind.pollMs]));
    return Math.min(this.slotMs, ...polls);
  }

  /** Asks whose deadline comes before the next slot get their refusal now rather than at their deadline. */
  private refuseHopeless(): void {
    for (const ask of [...this.waiting]) {
      if (ask.kind.refusesHopeless && ask.deadline < this.slotSeenAt) this.refuse(ask);
    }
  }

  /** Sends a turn's asks' query (see `send`): whether the pass made progress. */
  private async spend(turn: Turn, kind: AskKind): Promise<boolean> {
    // Taken off the list while in flight: asks arriving now wait for the next slot's query.
    for (const ask of turn.asks) {
      this.remove(ask);
      ask.inFlight = true;
    }
    try {
      return await this.send(turn, kind);
    } finally {
      // An ask the turn neither settled nor put back is left to its deadline's timer (refused now if it has passed).
      for (const ask of turn.asks.filter((ask) => ask.inFlight)) {
        ask.inFlight = false;
        if (ask.deadline <= this.clock.now()) this.refuse(ask);
      }
    }
  }

  /**
   * Sends a turn's body, each of its HTTP attempts granted a slot (`grant`): only an attempt the vendor receives
   * spends one, counted in its share and charged to the asks' callers; an answer from the cache (a hit, an
   * identical call in flight, stale-if-error) reaches no attempt and costs nothing, a `stale` answer's refresh
   * does. Whether the pass made progress: a slot spent, or an ask of the turn settled.
   */
  private async send(turn: Turn, kind: AskKind): Promise<boolean> {
    let attempts = 0;
    const grant = this.grant({
      callers: turn.asks.flatMap((ask) => (ask.caller === undefined ? [] : [ask.caller])),
      ...(turn.share === undefined ? {} : { share: turn.share }),
      granted: () => (attempts += 1),
    });
    let answer: DashboardAnswer;
    try {
      answer = await this.options.reporting.query(turn.body, grant);
    } catch (error) {
      if (waitsForSlot(error)) {
        // Not sent, no slot spent: the asks wait for the slot the budget names.
        for (const ask of turn.asks) this.requeue(ask);
        turn.slotRefused?.();
        return true;
      }
      turn.failed(error);
      return true;
    }
    if (attempts === 0 && answer.cache !== 'stale') {
      await turn.answered(answer);
      return turn.asks.some((ask) => ask.settled);
    }
    this.observer.slotSpent(kind.name, await turn.answered(answer));
    return true;
  }
}
