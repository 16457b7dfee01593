import type { MetricName } from '../../kernel/wire';
import { dashboardTtlSeconds } from '../../kernel/dashboardTtl';
import { alignInstant, resolveWindow } from '../dashboard/analyticsWindow';
import { FIELD_METRICS } from './articleMetrics';
import type { AnalyticsBoard } from './analyticsBoard';
import type { Clock } from '../../kernel/clock';
import { Demand } from './demand';
import { UpstreamError } from '../../kernel/failures/upstreamError';
import { metricUnavailable, newTablesSpent, splitsOnEmptyBody, waitsForSlot } from '../budget/errors';
import { NewTablesPerCaller } from './newTablesPerCaller';
import type { MetricPlan } from '../budget/metricPlan';
import { readCell, topRows, type Table } from './table';
import type { TableStore } from './tableStore';
import type { TableSpec } from './tableSpec';
import { TableAsks, type Delivery, type Need } from './tableAsks';
import type { BudgetQueue, BudgetQueueOptions } from '../budget/budgetQueue';

/**
 * How an ask was answered, for the operation log: fetched for it alone
 * (`fresh`), from a fresh table (`table`), from numbers past their TTL
 * (`stale`), by one query shared with other waiting asks (`merged`), or not
 * at all (`refused`).
 */
export type AskOutcome = 'fresh' | 'table' | 'stale' | 'merged' | 'refused';

/** One number with the window it is really over and when it was fetched. */
export interface Cell {
  value: number;
  fetchedAt: number;
  from: number;
  to: number;
  outcome: Exclude<AskOutcome, 'refused'>;
}

export interface Ranking {
  rows: { url: string; value: number }[];
  fetchedAt: number;
  from: number;
  to: number;
  outcome: Exclude<AskOutcome, 'refused'>;
}

export interface AnalyticsTablesOptions {
  /** The one queue for the reporting budget, shared with the dashboards (src/reporting/reportingService.ts builds it once). */
  queue: BudgetQueue;
  reporting: BudgetQueueOptions['reporting'];
  store: TableStore;
  clock: Clock;
  /** DASHBOARD_CACHE_TTL_SECONDS: a table is fresh this long (an hour once its window ended); 0 never reuses one. */
  ttlSeconds: number;
  maxStalenessSeconds: number;
  windowAlignSeconds: number;
  maxRows: number;
  /** ANALYTICS_CHUNK_SIZE: most urls of one narrowed query. */
  maxNarrowedUrls: number;
  /** The store is shared by replicas (Redis): waiting asks also look for tables other replicas fetched. */
  shared?: boolean;
  /** Replicas share their waiting asks, demand and learned plan (Redis); default: this process's own. */
  board?: AnalyticsBoard;
  /**
   * ANALYTICS_NEW_TABLES_PER_CALLER over DASHBOARD_SHARE_WINDOW_SECONDS: the tables no store holds one caller's asks
   * may make the subgraph fetch (`ReadOptions.caller`). Absent: no cap (tests of one caller).
   */
  newTablesPerCaller?: { tables: number; windowMs: number };
}

/** Who reads, besides what: the caller the new tables count for, and the signal that says the asker left. */
export interface ReadOptions {
  /** `context.caller.id`: the tables no store holds its asks make the subgraph fetch count against its cap. */
  caller?: string;
  /** Aborted when the asker left (a live feed whose last subscriber left): its waiting asks are withdrawn. */
  signal?: AbortSignal;
}

/** The tables' reads as one caller makes them (src/operation/context.ts binds each operation's caller). */
export type TablesReader = Pick<AnalyticsTables, 'ranking' | 'articles'>;

/** Most specs remembered for naming tables in metrics. */
const MAX_SPECS = 1_000;

/** The metrics a table of article numbers carries: what ArticleAnalytics' fields read. */
const ARTICLE_METRICS: readonly MetricName[] = Object.values(FIELD_METRICS);

/**
 * `Article.analytics` and `topArticles` answered from tables (one per spec):
 * fresh tables answer at once, stale ones (up to the maximum staleness)
 * answer at once and ask for a refresh, and whatever no table can say waits
 * for the next budget slot in the budget queue, merged with every other ask of the
 * same table. Process-wide: it holds the service account's analytics only.
 */
export class AnalyticsTables {
  private readonly plan: MetricPlan;
  /** The budget queue the tables' asks wait in (the dashboards' too, when the process shares it). */
  readonly queue: BudgetQueue;
  private readonly demand = new Demand();
  /** Specs by key, for naming a fetched table (bounded like the demand). */
  private readonly specs = new Map<string, TableSpec>();
  private readonly tableAsks: TableAsks;
  /** Most urls of one narrowed query: ANALYTICS_CHUNK_SIZE, never more than one answer carries (REPORTING_MAX_ROWS). */
  private readonly maxNarrowedUrls: number;
  private readonly newTables: NewTablesPerCaller | undefined;

  constructor(private readonly options: AnalyticsTablesOptions) {
    this.maxNarrowedUrls = Math.max(1, Math.min(options.maxNarrowedUrls, options.maxRows));
    const cap = options.newTablesPerCaller;
    this.newTables = cap === undefined ? undefined : new NewTablesPerCaller(cap.tables, cap.windowMs);
    const board = options.board;
    this.tableAsks = new TableAsks({
      queue: options.queue,
      reporting: options.reporting,
      tableMetrics: (spec) => this.tableMetrics(spec),
      windowOf: (spec, now) => resolveWindow(spec.window, alignInstant(now, options.windowAlignSeconds)),
      maxRows: options.maxRows,
      maxNarrowedUrls: this.maxNarrowedUrls,
      onTable: (table) => this.storeTable(table),
      ...(options.shared === true ? { lookup: (need: Need) => this.sharedAnswer(need) } : {}),
      ...(board === undefined ? {} : { board, adoptSharedPlan: () => this.adoptSharedPlan() }),
    });
    this.queue = this.tableAsks.queue;
    this.plan = this.queue.plan;
    if (board !== undefined) this.plan.tellUnavailable((metric) => board.learnUnavailable(metric));
  }

  /** The numbers of `urls` × `metrics`: each a Cell, or the Error its field answers. */
  async articles(
    spec: TableSpec,
    urls: readonly string[],
    metrics: readonly MetricName[],
    deadline: number,
    read: ReadOptions = {},
  ): Promise<Map<string, Map<MetricName, Cell | Error>>> {
    const cells = new Map(urls.map((url) => [url, new Map<MetricName, Cell | Error>()]));
    const [table] = await Promise.all([this.usableTable(spec, read.signal), this.adoptSharedPlan()]);
    for (const metric of metrics) {
      if (this.plan.isUnavailable(metric)) for (const byMetric of cells.values()) byMetric.set(metric, metricUnavailable(metric));
    }
    if (table !== undefined) this.fill(cells, metrics, table, this.servedOutcome(spec, table));
    const pointUrls = missingUrls(cells, metrics);
    if (pointUrls.length > 0) {
      for (const [url, point] of await this.options.store.points(spec.key, pointUrls)) {
        if (this.isUsable(spec, point))
          this.fill(new Map([[url, cells.get(url) ?? new Map()]]), metrics, point, this.servedOutcome(spec, point));
      }
    }
    await this.fetchMissing(spec, cells, metrics, deadline, table, read);
    return cells;
  }

  /** The first `limit` rows of the spec's table, ranked by its metric. */
  async ranking(spec: TableSpec, limit: number, deadline: number, read: ReadOptions = {}): Promise<Ranking> {
    const [table] = await Promise.all([this.usableTable(spec, read.signal), this.adoptSharedPlan()]);
    if (this.plan.isUnavailable(spec.rank)) throw metricUnavailable(spec.rank);
    if (table !== undefined && table.metrics.includes(spec.rank)) return rankingOf(table, spec, limit, this.servedOutcome(spec, table));
    let delivery: Delivery;
    try {
      if (table === undefined) this.admitNewTable(spec, read.caller);
      delivery = await this.tableAsks.wait({ spec, metrics: [spec.rank] }, deadline, read.signal);
    } catch (error) {
      this.refusal(error);
      throw error;
    }
    if (!delivery.table.metrics.includes(spec.rank)) throw metricUnavailable(spec.rank);
    return rankingOf(delivery.table, spec, limit, fetchedOutcome(delivery));
  }

  /** The reads of one caller: the tables no store holds that its asks make the subgraph fetch count against its cap. */
  forCaller(caller: string): TablesReader {
    return {
      ranking: (spec, limit, deadline, read = {}) => this.ranking(spec, limit, deadline, { ...read, caller }),
      articles: (spec, urls, metrics, deadline, read = {}) => this.articles(spec, urls, metrics, deadline, { ...read, caller }),
    };
  }

  /** Stops the budget queue (shutdown): nothing more is sent. */
  close(): void {
    this.tableAsks.close();
  }

  /** An ask of a table no store holds, which a slot would fetch: counted in its caller's cap, or refused (then it never waits). */
  private admitNewTable(spec: TableSpec, caller: string | undefined): void {
    if (caller === undefined || this.newTables === undefined) return;
    const retryAfterMs = this.newTables.admit(caller, spec.key, this.options.clock.now());
    if (retryAfterMs !== undefined) throw newTablesSpent(retryAfterMs);
  }

  private async storeTable(table: Table): Promise<void> {
    if (table.urls !== 'all') return this.options.store.setPoints(table);
    await this.options.store.setTable(table);
    const spec = this.specs.get(table.key);
    if (spec !== undefined) this.queue.observer.tableFetched(tableLabel(spec), table.fetchedAt);
  }

  /** An ask's error, to the observer (the queue tells it of its own refusals: no slot within the deadline). */
  private refusal(error: unknown): void {
    // A withdrawn ask (its asker left) is no refusal: nobody reads its answer.
    if (waitsForSlot(error) || (error instanceof Error && error.name === 'AbortError')) return;
    // The caller's cap of new tables: a refusal of its own share, as the fair share's.
    if (error instanceof UpstreamError && error.kind === 'caller_tables_spent') return this.queue.observer.askRefused('table', 'share');
    this.queue.observer.askRefused('table', splitsOnEmptyBody(error) ? 'metric_unavailable' : 'upstream_error');
  }

  /** What the shared store holds for a need: the whole table, or (for a narrowed need) another replica's narrowed answer for its urls. */
  private async sharedAnswer(need: Need): Promise<Table | undefined> {
    const table = await this.options.store.table(need.spec.key);
    if (
      need.urls === undefined ||
      (table !== undefined && need.urls.every((url) => readCell(table, url, need.metrics[0] ?? need.spec.rank) !== undefined))
    ) {
      return table;
    }
    const points = await this.options.store.points(need.spec.key, need.urls);
    const first = points.get(need.urls[0]);
    // One narrowed query answered them all only if every url has the same answer.
    return first !== undefined && need.urls.every((url) => points.get(url)?.fetchedAt === first.fetchedAt)
      ? mergePoints(points)
      : undefined;
  }

  /** What the other replicas learned of the plan (read beside the table, so it costs no wait of its own). */
  private async adoptSharedPlan(): Promise<void> {
    if (this.options.board !== undefined) this.plan.adoptShared(await this.options.board.unavailableMetrics());
  }

  /**
   * Counts the ask and, when its table is half way to its TTL or past it, asks for a refresh (on behalf of `asker`,
   * a live feed: withdrawn once every feed that asked left).
   */
  private async usableTable(spec: TableSpec, asker: AbortSignal | undefined): Promise<Table | undefined> {
    const now = this.options.clock.now();
    this.demand.record(spec.key, now);
    this.specs.delete(spec.key);
    this.specs.set(spec.key, spec);
    if (this.specs.size > MAX_SPECS) this.specs.delete(this.specs.keys().next().value ?? '');
    const [table, clusterDemand] = await Promise.all([this.options.store.table(spec.key), this.options.board?.recordDemand(spec.key, now)]);
    if (table === undefined || !this.isUsable(spec, table)) return undefined;
    if (now - table.fetchedAt >= this.ttlMs(spec) / 2) {
      this.tableAsks.refresh(spec, clusterDemand ?? this.demand.score(spec.key, now), table.fetchedAt, asker);
    }
    return table;
  }

  private ttlMs(spec: TableSpec): number {
    return dashboardTtlSeconds(spec.window, this.options.clock.now(), this.options.ttlSeconds) * 1000;
  }

  private isUsable(spec: TableSpec, table: Table): boolean {
    const ttlMs = this.ttlMs(spec);
    if (ttlMs <= 0) return false;
    const age = this.options.clock.now() - table.fetchedAt;
    return age <= Math.max(ttlMs, this.options.maxStalenessSeconds * 1000);
  }

  private servedOutcome(spec: TableSpec, table: Table): Cell['outcome'] {
    return this.options.clock.now() - table.fetchedAt <= this.ttlMs(spec) ? 'table' : 'stale';
  }

  /** Every metric of an article table the plan allows, and the spec's rank. */
  private tableMetrics(spec: TableSpec): MetricName[] {
    return [spec.rank, ...ARTICLE_METRICS].filter((metric) => !this.plan.isUnavailable(metric) && !this.plan.isUnproven(metric));
  }

  private fill(
    cells: Map<string, Map<MetricName, Cell | Error>>,
    metrics: readonly MetricName[],
    table: Table,
    outcome: Cell['outcome'],
  ): void {
    for (const [url, byMetric] of cells) {
      for (const metric of metrics) {
        if (byMetric.has(metric)) continue;
        const value = readCell(table, url, metric);
        if (value !== undefined) byMetric.set(metric, { value, fetchedAt: table.fetchedAt, from: table.from, to: table.to, outcome });
      }
    }
  }

  /**
   * What no table could say waits for a slot: the whole table when there is
   * none (or it lacks a metric), then, if it is full, the urls it lacks, in
   * chunks one answer can carry (each an ask outside the table of its own). At most two
   * rounds, each within the deadline; a refusal fills what is left.
   */
  private async fetchMissing(
    spec: TableSpec,
    cells: Map<string, Map<MetricName, Cell | Error>>,
    metrics: readonly MetricName[],
    deadline: number,
    table: Table | undefined,
    read: ReadOptions,
  ): Promise<void> {
    let known = table;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const urls = missingUrls(cells, metrics);
      if (urls.length === 0) return;
      const wanted = missingMetrics(cells, metrics);
      // A metric the table lacks is worth refetching the table for only when the table ranks one of these
      // articles; an article a full table lacks is an ask outside the table, whatever metrics it reads (the narrowed query carries them).
      const whole =
        known === undefined ||
        (wanted.some((metric) => !known?.metrics.includes(metric)) && urls.some((url) => known?.rows.has(url) === true));
      if (whole) {
        if (known === undefined) {
          try {
            this.admitNewTable(spec, read.caller);
          } catch (error) {
            this.refusal(error);
            fillError(cells, metrics, error instanceof Error ? error : new Error(String(error)));
            return;
          }
        }
        const delivered = await this.waitFor({ spec, metrics: wanted, articles: urls }, cells, metrics, deadline, read.signal);
        if (delivered === undefined) return;
        if (delivered.urls === 'all') known = delivered;
        continue;
      }
      await Promise.all(
        chunked(urls, this.maxNarrowedUrls).map((chunk) => {
          const chunkCells = new Map(chunk.map((url) => [url, cells.get(url) ?? new Map<MetricName, Cell | Error>()]));
          const need: Need = { spec, urls: chunk, metrics: missingMetrics(chunkCells, metrics), articles: chunk };
          return this.waitFor(need, chunkCells, metrics, deadline, read.signal);
        }),
      );
    }
    fillError(cells, metrics, new Error('analytics: the numbers of this article were in no answer'));
  }

  /** Waits for the need's slot and fills `cells` from its table (or with the refusal); the table, or undefined once refused. */
  private async waitFor(
    need: Need,
    cells: Map<string, Map<MetricName, Cell | Error>>,
    metrics: readonly MetricName[],
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<Table | undefined> {
    let delivery: Delivery;
    try {
      delivery = await this.tableAsks.wait(need, deadline, signal);
    } catch (error) {
      this.refusal(error);
      fillError(cells, metrics, error instanceof Error ? error : new Error(String(error)));
      return undefined;
    }
    this.fill(cells, metrics, delivery.table, fetchedOutcome(delivery));
    for (const metric of need.metrics) {
      if (this.plan.isUnavailable(metric)) fillError(cells, [metric], metricUnavailable(metric));
    }
    return delivery.table;
  }
}

/** `urls` in runs of at most `size`. */
function chunked(urls: readonly string[], size: number): string[][] {
  const chunks: string[][] = [];
  for (let start = 0; start < urls.length; start += size) chunks.push(urls.slice(start, start + size));
  return chunks;
}

/** `merged`: the query answered other asks too, here or on another replica. */
function fetchedOutcome(delivery: Delivery): Cell['outcome'] {
  return delivery.asks > 1 || delivery.byAnotherReplica === true ? 'merged' : 'fresh';
}

function rankingOf(table: Table, spec: TableSpec, limit: number, outcome: Cell['outcome']): Ranking {
  return { rows: topRows(table, spec.rank, limit), fetchedAt: table.fetchedAt, from: table.from, to: table.to, outcome };
}

function missingUrls(cells: Map<string, Map<MetricName, Cell | Error>>, metrics: readonly MetricName[]): string[] {
  return [...cells].filter(([, byMetric]) => metrics.some((metric) => !byMetric.has(metric))).map(([url]) => url);
}

function missingMetrics(cells: Map<string, Map<MetricName, Cell | Error>>, metrics: readonly MetricName[]): MetricName[] {
  return metrics.filter((metric) => [...cells.values()].some((byMetric) => !byMetric.has(metric)));
}

function fillError(cells: Map<string, Map<MetricName, Cell | Error>>, metrics: readonly MetricName[], error: Error): void {
  for (const byMetric of cells.values()) for (const metric of metrics) if (!byMetric.has(metric)) byMetric.set(metric, error);
}

/** One replica's narrowed answer, read back per url from the shared store, as one table. */
function mergePoints(points: Map<string, Table>): Table | undefined {
  const tables = [...points.values()];
  const first = tables[0];
  if (first === undefined) return undefined;
  const rows = new Map(tables.flatMap((table) => [...table.rows]));
  return { ...first, rows, urls: new Set(points.keys()) };
}

/** A table's name in metrics: its window and rank metric, never its filter values. */
function tableLabel(spec: TableSpec): string {
  const window = spec.window.last != null ? `last_${spec.window.last.number}_${spec.window.last.unit}` : 'range';
  const filtered = spec.filters.domain !== undefined || spec.filters.section !== undefined ? '_filtered' : '';
  return `${window}_${spec.rank}${filtered}`;
}
