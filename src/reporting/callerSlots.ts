/** One caller's slots, as the budget queue charged them: when, and how much of a slot (a merged query is split between its callers). */
interface Charge {
  at: number;
  slots: number;
}

/** Below this, a sum of split slots is taken as whole (1/3 + 1/3 + 1/3). */
const EPSILON = 1e-9;

/**
 * The budget queue's ledger of the slots each caller's dashboard asks spent
 * over the last `windowMs` (DASHBOARD_SHARE_WINDOW_SECONDS): the queue
 * (src/reporting/budgetQueue.ts) reads it to decide whether a caller still
 * has room for a whole slot, and when it will. Nothing else counts slots per
 * caller.
 *
 * Asks in flight are not counted ahead: most are answered from the cache
 * (no slot), and a caller's dashboard page asks its panels at once, so
 * counting them would refuse panels that cost nothing. Concurrent tries can
 * overshoot the share only by what the governor grants at one instant (its
 * burst: one at real hosts' one a minute); a caller's asks still waiting are
 * refused as soon as a charge fills its share.
 */
export class CallerSlots {
  private readonly charges = new Map<string, Charge[]>();

  /** `slotsPerCaller`: the most slots one caller may spend over the window (at least 1). */
  constructor(
    private readonly slotsPerCaller: number,
    private readonly windowMs: number,
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
    let used = 0;
    for (const caller of [...this.charges.keys()]) used += this.live(caller, now).reduce((sum, charge) => sum + charge.slots, 0);
    return used + 1 <= this.slotsPerCaller + EPSILON;
  }

  /** The caller's asks spent `slots` (1, or its part of a merged query) at `now`. */
  charge(caller: string, now: number, slots: number): void {
    this.charges.set(caller, [...this.live(caller, now), { at: now, slots }]);
  }

  /** The caller's charges still inside the window, oldest first; a caller with none is forgotten (the map stays bounded by active callers). */
  private live(caller: string, now: number): Charge[] {
    const charges = (this.charges.get(caller) ?? []).filter((charge) => charge.at > now - this.windowMs);
    if (charges.length === 0) this.charges.delete(caller);
    else this.charges.set(caller, charges);
    return charges;
  }
}
