/** A refresh as the turn rule sees it: its demand, and when the table it would replace was fetched. */
export interface RefreshTurn {
  /** The table's demand (asks, decayed): the more, the more often it is refreshed. */
  weight: number;
  /** When the numbers it would replace were fetched: their age is what the bound holds. */
  fetchedAt: number;
}

/**
 * How long a slot's answer may take to arrive, counted in every check: a
 * table whose turn comes at its bound would otherwise be written just past it.
 */
const ANSWER_MARGIN_MS = 10_000;

/**
 * The longest a table in demand goes without a refresh (issue 35, item 2):
 * with `count` tables in demand and `slotsPerMinute` slots a minute for them,
 * ⌈count / slotsPerMinute⌉ + 1 minutes. Taking them oldest first needs
 * count / slotsPerMinute minutes; the rest of the bound is what demand may
 * spend on the tables asked for most.
 */
function refreshBoundMs(count: number, slotsPerMinute: number): number {
  return (Math.ceil(count / slotsPerMinute) + 1) * 60_000;
}

/**
 * Whether `refreshes` (oldest first) are all written within their bound if
 * they take the slots from `firstSlot` slots after `now` on, one each.
 */
function inTime(oldestFirst: readonly RefreshTurn[], firstSlot: number, now: number, slotMs: number, boundMs: number): boolean {
  return oldestFirst.every((refresh, index) => refresh.fetchedAt + boundMs >= now + (firstSlot + index) * slotMs + ANSWER_MARGIN_MS);
}

/**
 * The refresh that cannot wait for the tables' first fetches: if this slot
 * went to a table waiting for its first numbers (`waitingFirst` of them), and
 * every later slot to the refreshes, oldest first, one would be written past
 * its bound; then the oldest. Otherwise undefined, and the first fetches go
 * first (a screen with no numbers at all before one with old numbers). N
 * counts the tables waiting for their first fetch: they are in demand too,
 * and the bound has to leave them their slots. Without this check, new tables
 * arriving one after another took every slot they wanted, and the tables in
 * demand aged past their bound (442 s against 360 s in the mixed live bench).
 */
export function refreshDue<T extends RefreshTurn>(
  refreshes: readonly T[],
  waitingFirst: number,
  now: number,
  slotsPerMinute: number,
): T | undefined {
  if (refreshes.length === 0 || waitingFirst === 0) return undefined;
  const oldestFirst = [...refreshes].sort((a, b) => a.fetchedAt - b.fetchedAt);
  const boundMs = refreshBoundMs(refreshes.length + waitingFirst, slotsPerMinute);
  return inTime(oldestFirst, 1, now, 60_000 / slotsPerMinute, boundMs) ? undefined : oldestFirst[0];
}

/**
 * Which refresh gets the slot: the most demanded, unless giving it the slot
 * would leave another table past its bound (`refreshBoundMs`, N counting the
 * `waitingFirst` tables waiting for their first fetch) even if every later
 * slot went to the others, oldest first; then the oldest. So demand decides
 * how often a table is refreshed (the tables asked for most take every slot
 * the others can spare), never whether it is: the classic
 * earliest-deadline-first schedule, with the slack lent to demand.
 * "Every later slot" means the slots the tables get: asks outside the tables
 * and callers' dashboards keep their shares of the budget (the queue's
 * `order`), and the bound counts the slots left to the tables.
 */
export function nextRefresh<T extends RefreshTurn>(
  refreshes: readonly T[],
  waitingFirst: number,
  now: number,
  slotsPerMinute: number,
): T | undefined {
  if (refreshes.length === 0) return undefined;
  const boundMs = refreshBoundMs(refreshes.length + waitingFirst, slotsPerMinute);
  const oldestFirst = [...refreshes].sort((a, b) => a.fetchedAt - b.fetchedAt);
  const mostDemanded = refreshes.reduce((best, refresh) =>
    refresh.weight > best.weight || (refresh.weight === best.weight && refresh.fetchedAt < best.fetchedAt) ? refresh : best,
  );
  // The others, oldest first, at the slots after this one: the k-th of them is written by now + k slots (and its answer).
  const others = oldestFirst.filter((refresh) => refresh !== mostDemanded);
  return inTime(others, 1, now, 60_000 / slotsPerMinute, boundMs) ? mostDemanded : oldestFirst[0];
}
