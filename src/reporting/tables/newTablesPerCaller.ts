/** Most callers remembered at once: past it, the one not seen longest is forgotten (it starts afresh). */
const MAX_CALLERS = 10_000;

/**
 * The tables each caller made the subgraph fetch anew (ANALYTICS_NEW_TABLES_PER_CALLER
 * over DASHBOARD_SHARE_WINDOW_SECONDS; issue 35, item 4): a table no store
 * holds costs a slot of the newsroom's budget and its memory, so one caller
 * naming ever new filters (a `section` per subscription) could spend the
 * budget on tables nobody reads. A table the caller asked for already, or
 * one the store holds, costs nothing here. Counted per replica, by the
 * caller's id (`context.caller.id`), at the ask: a refused ask never waits.
 */
export class NewTablesPerCaller {
  /** Per caller, the table keys it asked anew and when, oldest first (insertion order). */
  private readonly asked = new Map<string, Map<string, number>>();

  constructor(
    private readonly perCaller: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Counts the caller's ask of a table no store holds: undefined when within its cap (or the table was counted
   * already), else how long until it has room for one more.
   */
  admit(caller: string, key: string, now: number): number | undefined {
    const tables = this.live(caller, now);
    if (tables.has(key)) return undefined;
    if (tables.size >= this.perCaller) {
      const [oldestAt] = tables.values();
      return Math.max(1, oldestAt + this.windowMs - now);
    }
    tables.set(key, now);
    // Most recently seen last: the first caller is the one to forget when there are too many.
    this.asked.delete(caller);
    this.asked.set(caller, tables);
    for (const forgotten of this.asked.keys()) {
      if (this.asked.size <= MAX_CALLERS) break;
      this.asked.delete(forgotten);
    }
    return undefined;
  }

  /** The caller's tables still inside the window. */
  private live(caller: string, now: number): Map<string, number> {
    const tables = this.asked.get(caller) ?? new Map<string, number>();
    for (const [key, at] of tables) {
      if (at > now - this.windowMs) break;
      tables.delete(key);
    }
    if (tables.size === 0) this.asked.delete(caller);
    return tables;
  }
}
