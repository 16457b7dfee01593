import type { DashboardEndpoint } from '../../upstream/endpoints/dashboard';
import type { DashboardAnswer } from '../../kernel/fetched';
import type { DashboardQueryBody } from '../../kernel/wire';
import type { UpstreamError } from '../../kernel/failures/upstreamError';
import { NO_OBSERVER, safeObserver, type AskKindName, type UpstreamObserver } from '../../upstream/observer';
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
  /** The asks it carries: off the list while in flight, back on it if the governor refuses the slot. */
  asks: QueuedAsk[];
  /** Which share the slot counts in when answered: the asks outside the tables', or the whole tables'; none for dashboards. */
  share?: 'outside' | 'table';
  /** Settles the asks the answer serves; how many asks it answered (this replica's and others'). */
  answered(answer: DashboardAnswer): Promise<number>;
  /** The governor refused the slot: the kind puts back what it keeps outside the list (a refresh). */
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
  /**
   * How long before the slot its query goes (the governor holds it until the
   * slot, so an ask arriving in those last moments cannot take the slot for
   * its body alone): UPSTREAM_QUEUE_TIMEOUT_MS for dashboards, 0 otherwise.
   */
  readonly leadMs: number;
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
   * The protected endpoint, process-wide: it caches, coalesces and governs; the queue decides what to send and when.
   * `peek`: its answer cache read alone (no upstream call), read before a dashboard is held back or refused.
   * `onBudgetShared`: the governor's word that the budget is shared again (Redis back), so a next slot learned
   * from this replica's small share while it was away is forgotten.
   */
  reporting: Pick<DashboardEndpoint, 'query'> & Partial<Pick<DashboardEndpoint, 'peek' | 'onBudgetShared'>>;
  clock: Clock;
  /** ANALYTICS_COLD_SHARE: the share of the tables' slots kept for asks outside the tables while refreshes wait. */
  outsideShare: number;
  /** What the account's plan allows, learned from every answer of every kind (the reporting service's one plan). */
  plan: MetricPlan;
  /** Hears the asks waiting, refused and answered per slot, and the tables fetched (the metrics; tests record it). */
  observer?: UpstreamObserver;
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
   * REPORTING_RATE_PER_MINUTE: the slots a minute the governor grants, which bound how long a table in demand
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
 * The one queue for the reporting budget: every ask that found no slot waits
 * here, whatever its kind. It owns when the next slot is (learned from the
 * governor's own refusal: a refused try spends nothing), the deadlines and
 * the refusals with retryAfter, re-queueing after a refusal, what the plan
 * allows, and the order between kinds of asks (`order`). Each kind brings
 * only its merge rule (`AskKind`): dashboard bodies merge by metric, table
 * asks by url and metric, refreshes are low-priority.
 */
export class BudgetQueue {
  readonly plan: MetricPlan;
  readonly clock: Clock;
  readonly observer: UpstreamObserver;
  private readonly waiting: QueuedAsk[] = [];
  private readonly kinds = new Set<AskKind>();
  /** The earliest instant the governor may grant a slot, as its last refusal said; 0: try now. */
  private nextSlotAt = 0;
  /** The governor's last refusal: a refusal given here keeps its words and never says more than it did. */
  private governorRefusal: UpstreamError | undefined;
  /** The query in flight went before the slot: if the governor refused it after all, the next one waits for the slot itself. */
  private wentEarly = false;
  private running = false;
  private closed = false;
  /** Slots spent on asks outside the tables, and on whole tables (first fetches and refreshes): the outside share's count. */
  private outsideSlots = 0;
  private tableSlots = 0;
  /** Slots each caller's ad-hoc asks spent over the share's window (the fair share's count: nothing beside the queue counts them). */
  private readonly callerSlots: CallerSlots | undefined;
  /** Ends the run loop's current sleep early (the next slot was forgotten). */
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
    this.observer = safeObserver(options.observer ?? NO_OBSERVER);
    const share = options.callerShare;
    this.callerSlots = share === undefined ? undefined : new CallerSlots(share.slotsPerCaller, share.windowMs);
    this.stopListening = options.reporting.onBudgetShared?.(() => this.forgetNextSlot());
  }

  /**
   * The budget is shared again: the next slot learned from a refusal of this
   * replica's small share no longer holds, so the waiting asks try at once
   * (a refused try spends nothing and teaches the real next slot).
   */
  forgetNextSlot(): void {
    this.nextSlotAt = 0;
    this.governorRefusal = undefined;
    this.wake?.();
  }

  /**
   * Sends a caller's ad-hoc ask at once, outside the queue's order (it may
   * find a slot free, or its answer cached); a refusal teaches the next slot.
   * Two rules come first, so the ask never spends a slot it may not have:
   * - over its caller's fair share, it is refused at once (`shareSpent`, with
   *   retryAfter), before any try at the endpoint, and never waits here;
   * - while the newsroom's work waits (table asks, refreshes) and the slot is
   *   within the kind's lead (UPSTREAM_QUEUE_TIMEOUT_MS: the governor would
   *   hold this query until the slot and give it the slot), it does not try:
   *   it waits in the order, behind them (issue 28: a greedy caller took 5 of 6 slots so).
   * Neither rule holds back an answer the cache has: before either refuses,
   * the answer cache is read alone (`peek`: no upstream call, no slot), and a
   * cached answer is served (a cached answer costs nothing, docs/security.md).
   */
  async tryNow(kind: AskKind, body: DashboardQueryBody, caller: string): Promise<DashboardAnswer> {
    // Only with a shared ledger: without one, the try starts in this turn, as it always did.
    if (this.options.sharedCallerSlots !== undefined) await this.learnSharedSlots([caller]);
    const shareRefusal = this.shareRefusal(caller);
    if (shareRefusal !== undefined) return this.cachedOr(body, () => this.refuseOverShare(kind, caller, shareRefusal));
    const untilSlotMs = this.nextSlotAt - this.clock.now();
    if (untilSlotMs <= kind.leadMs && this.newsroomWaits(kind)) {
      const refusal = refused(untilSlotMs, this.governorRefusal);
      return this.cachedOr(body, () => refusal);
    }
    try {
      const answer = await this.options.reporting.query(body);
      if (answer.cache === 'miss') this.chargeCallers([caller]);
      return answer;
    } catch (error) {
      if (waitsForSlot(error)) this.learnRefusal(error);
      throw error;
    }
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
   * The newsroom's work waits for a slot the order would give it before this
   * kind's ask: another kind's asks, or a refresh unless the dashboards may
   * still go before refreshes (`dashboardsBeforeRefreshes`).
   */
  private newsroomWaits(kind: AskKind): boolean {
    if (this.waiting.some((ask) => ask.kind !== kind)) return true;
    const refreshes = [...this.kinds].some((other) => other !== kind && other.hasWork?.() === true);
    return refreshes && !this.dashboardsBeforeRefreshes();
  }

  /**
   * Callers' dashboards go before refreshes only while all callers' dashboards
   * together spent less than one caller's share over the window: a caller gets
   * its share even while refreshes always wait (at one unit a minute they do),
   * and however many callers there are, the refreshes keep all the rest.
   */
  private dashboardsBeforeRefreshes(): boolean {
    return this.callerSlots?.roomForAll(this.clock.now()) ?? false;
  }

  /** A slot was spent on the asks of these callers: each is charged its part (a merged query's slot is split between them). */
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
    if (this.nextSlotAt > deadline || deadline <= now) return Promise.reject(this.refusal(kind));
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

  /** The time between two slots the governor grants (REPORTING_RATE_PER_MINUTE a minute). */
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
    const next = Math.max(this.nextSlotAt, this.clock.now());
    const share = this.options.outsideShare;
    let later = 0;
    while (later < 2 && this.outsideSlots > share * (this.outsideSlots + this.tableSlots + later)) later += 1;
    return next + later * this.slotMs;
  }

  /** Stops after the current slot; asks still waiting get their refusal at their deadline. */
  close(): void {
    this.closed = true;
    this.stopListening?.();
    this.wake?.();
  }

  /** The refusal an ask of `kind` gets when no slot comes within its deadline (told to the observer): the governor's, with its seconds until the slot. */
  private refusal(kind: AskKind): Error {
    this.observer.askRefused(kind.name, 'deadline');
    return refused(Math.max(1_000, this.nextSlotAt - this.clock.now()), this.governorRefusal);
  }

  private refuse(ask: QueuedAsk): void {
    if (!ask.settled && !ask.inFlight) ask.settle(this.refusal(ask.kind));
  }

  private learnRefusal(refusal: UpstreamError): void {
    this.governorRefusal = refusal;
    this.nextSlotAt = this.clock.now() + (refusal.retryAfterSeconds ?? 1) * 1000;
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

  /** One slot per pass, or a sleep until the next one: bounded by the governor's rate. */
  private async run(): Promise<void> {
    try {
      while (!this.closed && this.hasWork()) {
        const untilSlotMs = this.nextSlotAt - this.clock.now();
        const leadMs = this.wentEarly ? 0 : Math.max(0, ...this.waiting.map((ask) => ask.kind.leadMs));
        const waitMs = untilSlotMs - leadMs;
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
        this.wentEarly = untilSlotMs > 0;
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
   * 0. a refresh that would be written past its bound, ⌈N / B⌉ + 1 minutes
   *    for N tables (in demand, or waiting for their first fetch) at B slots a
   *    minute, if this slot went to a table's first fetch (`refreshDue`);
   * 1. table asks with nothing to serve them (not even stale numbers);
   *    then what refused asks left for this slot, promised to their retries (`promised`);
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
   * Dashboards used to come first: their query goes UPSTREAM_QUEUE_TIMEOUT_MS
   * before the slot and the governor holds the slot for it, so the tables'
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
      refreshDue(refreshes, waitingFirst, now, slotsPerMinute) ??
      best('unserved') ??
      best('promised') ??
      (outsideTurn ? best('outside') : undefined) ??
      (dashboardsFirst ? best('dashboard') : undefined) ??
      nextRefresh(refreshes, waitingFirst, now, slotsPerMinute) ??
      best('outside') ??
      best('dashboard')
    );
  }

  /**
   * Sleeps until the next look, or until `forgetNextSlot` (or `close`, or an arriving ask) wakes the loop. A plain
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
      if (ask.kind.refusesHopeless && ask.deadline < this.nextSlotAt) this.refuse(ask);
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
   * Sends a turn's body. Only a query the vendor receives spends a slot (counted in its share, charged to callers, told as
   * `slotSpent`): an answer from the cache costs nothing. Whether the pass made progress: a slot spent, or an ask
   * of the turn settled.
   */
  private async send(turn: Turn, kind: AskKind): Promise<boolean> {
    let answer: DashboardAnswer;
    try {
      answer = await this.options.reporting.query(turn.body);
    } catch (error) {
      if (waitsForSlot(error)) {
        // Not sent, no slot spent: the asks wait for the slot the refusal names.
        this.learnRefusal(error);
        for (const ask of turn.asks) this.requeue(ask);
        turn.slotRefused?.();
        return true;
      }
      turn.failed(error);
      return true;
    }
    // A hit, an identical call in flight (its sender spent the slot) or stale-if-error cost nothing; a `stale` answer
    // started the cache's refresh, which the vendor counts.
    if (answer.cache !== 'miss' && answer.cache !== 'stale') {
      await turn.answered(answer);
      return turn.asks.some((ask) => ask.settled);
    }
    this.nextSlotAt = 0;
    if (turn.share === 'outside') this.outsideSlots += 1;
    else if (turn.share === 'table') this.tableSlots += 1;
    if (answer.cache === 'miss') this.chargeCallers(turn.asks.flatMap((ask) => (ask.caller === undefined ? [] : [ask.caller])));
    this.observer.slotSpent(kind.name, await turn.answered(answer));
    return true;
  }
}
