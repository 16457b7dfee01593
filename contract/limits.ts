/** At most this many dimensions in one query's `groupBy`. */
export const MAX_GROUP_BY = 3;

/** The upstream's largest `limit` (rows of one page), and the rows a page has when `limit` is absent. */
export const MAX_LIMIT = 1_000;
export const DEFAULT_LIMIT = 100;

/**
 * The rows one query of the live API returns at most, whatever its `limit`:
 * public clients read about 500 [seen]. The emulator's realistic profile cuts
 * pages there, and the subgraph's REPORTING_MAX_ROWS defaults to it.
 */
export const LIVE_MAX_ROWS_PER_PAGE = 500;
