import { randomUUID } from 'node:crypto';

/** One caller's part of a slot, as the budget queue charged it: which slot, when, and how much of it (a merged query is split between its callers). */
export interface Charge {
  /** The slot's id, the same in every caller's ledger and on every replica (`<replica>:<n>`): a charge read back from Redis is not counted twice. */
  id: string;
  at: number;
  slots: number;
}

/** A slot spent on callers' asks: its id, when, and each caller's part. */
export interface SpentSlot {
  id: string;
  at: number;
  parts: { caller: string; slots: number }[];
}

/**
 * The ledger shared by the replicas (src/redis/reporting/redisCallerSlots.ts,
 * REDIS_URL): what every replica's callers spent over the window. Reads
 * resolve undefined when the shared ledger cannot tell (Redis away, slow or
 * refusing): the queue then counts this replica's own charges, as without it.
 * Never rejects.
 */
export interface SharedCallerSlots {
  /** The caller's charges inside the window, from every replica. */
  chargesOf(caller: string, now: number): Promise<Charge[] | undefined>;
  /** How many slots all callers' asks spent inside the window, on every replica. */
  slotsSpent(now: number): Promise<number | undefined>;
  /** Writes a spent slot (in the background); resolves whether the shared ledger holds it now. */
  record(slot: SpentSlot): Promise<boolean>;
}

/** Below this, a sum of split slots is taken as whole (1/3 + 1/3 + 1/3). */
const EPSILON = 1e-9;

/**
 * The budget queue's ledger of the slots each caller's dashboard asks spent
 * over the last `windowMs` (DASHBOARD_SHARE_WINDOW_SECONDS): the queue
 * (src/reporting/budget/budgetQueue.ts) reads it to decide whether a caller still
 * has room for a whole slot, and when it will. Nothing else counts slots per
 * caller.
 *
 * Its reads are synchronous (the queue's order reads them): with REDIS_URL,
 * the queue learns what the other replicas charged (`learnCaller`,
 * `learnSpent`) where it already awaits, and the ledger counts its own
 * charges with what it learned, each slot once (by id). A charge this
 * replica made is never dropped by a look at Redis (it may not be written
 * there yet, or Redis was away).
 *
 * Asks in flight are not counted ahead: most are answered from the cache
 * (no slot), and a caller's dashboard page asks its panels at once, so
 * counting them would refuse panels that cost nothing. Concurrent tries can
 * overshoot the share only by what the governor grants at one instant (its
 * burst: one at real hosts' one a minute); a caller's asks still waiting are
 * refused as soon as a charge fills its share.
 */
export class CallerSlots {
  private readonly own = new Map<string, Charge[]>();
  private readonly learned = new Map<string, Charge[]>();
  /** This replica's slots not yet known to be in the shared ledger (by id, with when): counted beside the learned total. */
  private readonly unshared = new Map<string, number>();
  /** All callers' slots in the shared ledger as last read, and when; undefined: never read (or Redis could not tell). */
  private learnedSpent: { count: number; at: number } | undefined;
  private readonly replica = randomUUID();
  private spentSlots = 0;

  /** `slotsPerCaller`: the most slots one caller may spend over the window (at least 1). */
  constructor(
    private readonly slotsPerCaller: number,
    readonly windowMs: number,
  ) {}

  /** When the caller has room for one more whole slot: `now` if it has, else the instant enough of its slots leave the window. */
  roomAt(caller: string, now: number): number {
    const charges = this.live(caller, now);
    let used = charges.reduce((sum, charge) => sum + charge.slots, 0);
    if (used + 1 <= this.slotsPerCaller + EPSILON) return now;
    for (const charge of charges) {
      used -= charge.slots;
      if (used + 1 <= this.slotsPerCaller + EPSILON) return charge.at + this.windowMs;
    }
    // Unreachable: with every charge gone from the window, nothing is used. The window's end is the safe answer.
    return now + this.windowMs;
  }

  /** Whether every caller's slots together over the window leave room for one more whole slot within one caller's share. */
  roomForAll(now: number): boolean {
    return this.spent(now) + 1 <= this.slotsPerCaller + EPSILON;
  }

  /** The callers' asks spent one slot at `now`, split between them: each is charged its part. */
  charge(callers: readonly string[], now: number): SpentSlot {
    this.spentSlots += 1;
    const id = `${this.replica}:${this.spentSlots}`;
    const slots = 1 / callers.length;
    for (const caller of callers) this.own.set(caller, [...this.liveOwn(caller, now), { id, at: now, slots }]);
    this.unshared.set(id, now);
    return { id, at: now, parts: callers.map((caller) => ({ caller, slots })) };
  }

  /** The slot is in the shared ledger now: the learned total counts it from the next read on. */
  shared(id: string): void {
    this.unshared.delete(id);
  }

  /** The caller's charges as the shared ledger holds them (every replica's), replacing what was learned before. */
  learnCaller(caller: string, charges: readonly Charge[]): void {
    if (charges.length === 0) this.learned.delete(caller);
    else this.learned.set(caller, [...charges]);
  }

  /** How many slots all callers spent as the shared ledger holds them, read at `now`. */
  learnSpent(count: number, now: number): void {
    this.learnedSpent = { count, at: now };
  }

  /** Slots spent over the window: this replica's own, or the shared count with this replica's slots not yet in it, whichever is more. */
  private spent(now: number): number {
    for (const [id, at] of this.unshared) if (at <= now - this.windowMs) this.unshared.delete(id);
    for (const caller of [...this.learned.keys()]) this.liveLearned(caller, now);
    let own = 0;
    for (const caller of [...this.own.keys()]) own += this.liveOwn(caller, now).reduce((sum, charge) => sum + charge.slots, 0);
    // A learned count older than the window says nothing about now.
    const learned = this.learnedSpent !== undefined && this.learnedSpent.at > now - this.windowMs ? this.learnedSpent.count : 0;
    return Math.max(own, learned + this.unshared.size);
  }

  /** The caller's charges inside the window, this replica's and learned ones, each slot once, oldest first. */
  private live(caller: string, now: number): Charge[] {
    const byId = new Map<string, Charge>();
    for (const charge of this.liveLearned(caller, now)) byId.set(charge.id, charge);
    for (const charge of this.liveOwn(caller, now)) byId.set(charge.id, charge);
    return [...byId.values()].sort((a, b) => a.at - b.at);
  }

  /** The caller's learned charges still inside the window; a caller with none is forgotten. */
  private liveLearned(caller: string, now: number): Charge[] {
    const charges = (this.learned.get(caller) ?? []).filter((charge) => charge.at > now - this.windowMs);
    if (charges.length === 0) this.learned.delete(caller);
    return charges;
  }

  /** This replica's charges of the caller still inside the window, oldest first; a caller with none is forgotten (the map stays bounded by active callers). */
  private liveOwn(caller: string, now: number): Charge[] {
    const charges = (this.own.get(caller) ?? []).filter((charge) => charge.at > now - this.windowMs);
    if (charges.length === 0) this.own.delete(caller);
    else this.own.set(caller, charges);
    return charges;
  }
}
