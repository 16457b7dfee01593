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
 * Which refresh gets the slot: the most demanded, unless giving it the slot
 * would leave another table past its bound (`refreshBoundMs`) even if every
 * later slot went to the others, oldest first; then the oldest. So demand
 * decides how often a table is refreshed (the tables asked for most take
 * every slot the others can spare), never whether it is: the classic
 * earliest-deadline-first schedule, with the slack lent to demand.
 * "Every later slot" means the slots the tables get: asks outside the tables
 * and callers' dashboards keep their shares of the budget (the queue's
 * `order`), and the bound counts the slots left to the tables.
 */
export function nextRefresh<T extends RefreshTurn>(refreshes: readonly T[], now: number, slotsPerMinute: number): T | undefined {
  if (refreshes.length === 0) return undefined;
  const slotMs = 60_000 / slotsPerMinute;
  const boundMs = refreshBoundMs(refreshes.length, slotsPerMinute);
  const oldestFirst = [...refreshes].sort((a, b) => a.fetchedAt - b.fetchedAt);
  const mostDemanded = refreshes.reduce((best, refresh) =>
    refresh.weight > best.weight || (refresh.weight === best.weight && refresh.fetchedAt < best.fetchedAt) ? refresh : best,
  );
  // The others, oldest first, at the slots after this one: the k-th of them is written by now + k slots (and its answer).
  const others = oldestFirst.filter((refresh) => refresh !== mostDemanded);
  const othersInTime = others.every((refresh, index) => refresh.fetchedAt + boundMs >= now + (index + 1) * slotMs + ANSWER_MARGIN_MS);
  return othersInTime ? mostDemanded : oldestFirst[0];
}
