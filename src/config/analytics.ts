import type { EnvReader } from './env';
import { UPSTREAM_CALL_DEFAULTS, UPSTREAM_MAX_ROWS } from './upstreamCalls';

/** Article analytics (`Article.analytics`, `topArticles`), answered from tables (docs/analytics-tables.md). */
export interface AnalyticsConfig {
  /** Article URLs per cold query: its rows must fit in one page of REPORTING_MAX_ROWS. */
  chunkSize: number;
  /**
   * Relative windows end at the operation's instant rounded down to this many
   * seconds (0: not rounded), so repeated operations ask the same question
   * and the answer cache can serve them.
   */
  windowAlignSeconds: number;
  /**
   * Longest an ask waits for the next slot of the reporting budget
   * (ANALYTICS_ASK_DEADLINE_MS): below the 30 s a router gives a subgraph,
   * so a refused ask still reaches the router as an answer.
   */
  askDeadlineMs: number;
  /** Oldest numbers still served (with their `fetchedAt`) while a refresh waits for its slot (ANALYTICS_MAX_STALENESS_SECONDS). */
  maxStalenessSeconds: number;
  /** The outside share: of the tables' slots, the share kept for asks outside the tables while refreshes also wait (ANALYTICS_COLD_SHARE, above 0, at most 1). */
  outsideShare: number;
  /**
   * The fair share (DASHBOARD_SHARE_PER_CALLER, above 0, at most 1): the most of the reporting slots one
   * caller's `dashboard` asks may take over DASHBOARD_SHARE_WINDOW_SECONDS; over it, refused at once.
   */
  dashboardSharePerCaller: number;
  /** The window the fair share is counted over (DASHBOARD_SHARE_WINDOW_SECONDS). */
  dashboardShareWindowSeconds: number;
  /**
   * The most tables no store held that one caller's asks may make the subgraph fetch over
   * DASHBOARD_SHARE_WINDOW_SECONDS (ANALYTICS_NEW_TABLES_PER_CALLER); past it, refused at once.
   */
  newTablesPerCaller: number;
}

/** What the server uses when a caller (a test) gives no analytics configuration. */
export const DEFAULT_ANALYTICS_CONFIG: AnalyticsConfig = Object.freeze({
  chunkSize: UPSTREAM_CALL_DEFAULTS.reportingMaxRows,
  windowAlignSeconds: 60,
  askDeadlineMs: 20_000,
  maxStalenessSeconds: 900,
  outsideShare: 0.5,
  // At real hosts' one slot a minute: 2 slots per caller per 10 minutes, so one greedy dashboard client
  // leaves the newsroom 8 of every 10 slots, and a person exploring dashboards gets an answer every few minutes.
  dashboardSharePerCaller: 0.2,
  dashboardShareWindowSeconds: 600,
  // A newsroom's screens and panels over a few windows and sections fit well within it; a caller naming a new
  // section per subscription is refused after 30 new tables in 10 minutes (each would cost a slot of the budget).
  newTablesPerCaller: 30,
});

/**
 * Chunks follow the rows cap: unset, a chunk is the default or the cap,
 * whichever is smaller; set above the cap, it is a problem naming both.
 */
export function readAnalytics(reader: EnvReader, reportingMaxRows: number): AnalyticsConfig {
  const chunkSize = reader.integer('ANALYTICS_CHUNK_SIZE', { min: 1, max: UPSTREAM_MAX_ROWS });
  if (chunkSize !== undefined && chunkSize > reportingMaxRows) {
    reader.problem(
      `ANALYTICS_CHUNK_SIZE (${chunkSize}) must not exceed REPORTING_MAX_ROWS (${reportingMaxRows}): each chunk's rows must fit in one query`,
    );
  }
  return {
    chunkSize: chunkSize ?? Math.min(DEFAULT_ANALYTICS_CONFIG.chunkSize, reportingMaxRows),
    windowAlignSeconds:
      reader.integer('ANALYTICS_WINDOW_ALIGN_SECONDS', { min: 0, max: 3_600 }) ?? DEFAULT_ANALYTICS_CONFIG.windowAlignSeconds,
    askDeadlineMs: reader.integer('ANALYTICS_ASK_DEADLINE_MS', { min: 0, max: 120_000 }) ?? DEFAULT_ANALYTICS_CONFIG.askDeadlineMs,
    maxStalenessSeconds:
      reader.integer('ANALYTICS_MAX_STALENESS_SECONDS', { min: 0, max: 86_400 }) ?? DEFAULT_ANALYTICS_CONFIG.maxStalenessSeconds,
    outsideShare: reader.decimal('ANALYTICS_COLD_SHARE', { above: 0, max: 1 }) ?? DEFAULT_ANALYTICS_CONFIG.outsideShare,
    dashboardSharePerCaller:
      reader.decimal('DASHBOARD_SHARE_PER_CALLER', { above: 0, max: 1 }) ?? DEFAULT_ANALYTICS_CONFIG.dashboardSharePerCaller,
    dashboardShareWindowSeconds:
      reader.integer('DASHBOARD_SHARE_WINDOW_SECONDS', { min: 1, max: 86_400 }) ?? DEFAULT_ANALYTICS_CONFIG.dashboardShareWindowSeconds,
    newTablesPerCaller:
      reader.integer('ANALYTICS_NEW_TABLES_PER_CALLER', { min: 1, max: 100_000 }) ?? DEFAULT_ANALYTICS_CONFIG.newTablesPerCaller,
  };
}
