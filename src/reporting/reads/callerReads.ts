import type { Caller } from '../../auth/callers/caller';
import type { DashboardQueryBody, MetricName } from '../../kernel/wire';
import type { DashboardEndpoint } from '../../upstream/endpoints/dashboard';
import type { DashboardAsker, DashboardAsks } from '../dashboard/dashboardAsks';
import type { DashboardAnswer } from '../../kernel/fetched';
import type { AskOutcome, Cell, TablesReader } from '../tables/analyticsTables';
import type { TableSpec } from '../tables/tableSpec';
import { topArticlesSpec, type TopArticlesRequest } from '../analytics/topArticles';
import { assertArticleOnSites, rankingScope, restrictDashboardToSites } from './callerSites';
import { ReadForbidden } from './readForbidden';

/**
 * What reading a metric needs, as the schema declares it (`@valueRequiresScopes`
 * on the Metric values): the words of the unmet requirement for these scopes,
 * or undefined when they suffice. Built once from the schema by
 * src/graphql/access/metricRule.ts.
 */
export interface MetricRule {
  refusal(metric: MetricName, scopes: ReadonlySet<string>): string | undefined;
}

/** The cache scope of an answer, as the routers' and Apollo's cache hints name it. */
export type AnswerScope = 'PUBLIC' | 'PRIVATE';

/** A metric the caller may not read: left out of the ask (its field fails FORBIDDEN on its own), or the whole read refused. */
export type UnreadableMetrics = 'drop' | 'refuse';

/** One ranking as this caller may see it: only its sites' rows, ranked 1, 2, … among them. */
export interface CallerRanking {
  rows: { url: string; value: number; rank: number }[];
  from: number;
  to: number;
  fetchedAt: number;
  outcome: Exclude<AskOutcome, 'refused'>;
}

/** A ranking read planned for this caller: checked now, read on each call (a query once, a feed on each refresh). */
export interface RankingRead {
  /** Identity of what is read: equal for callers who see the same rows (a feed's key). */
  key: string;
  /** The table it reads (its spec's key). */
  table: string;
  /** `signal` aborts when the reader left (a feed's last subscriber): its waiting asks are withdrawn. */
  read(deadline: number, signal?: AbortSignal): Promise<CallerRanking>;
}

export interface CallerReadsOptions {
  /** The admitted caller (src/web/callerGate.ts): its id, scopes and sites. */
  caller: Caller;
  /** The tables as this caller reads them (the new tables it makes the subgraph fetch count against its cap). */
  tables: TablesReader;
  /** The process-wide dashboards: asked in the caller's name, so the budget queue counts its fair share. */
  dashboards: Pick<DashboardAsks, 'asker'>;
  /** The operation's own wrapping of the caller's asker: its upstream allowance and batching (src/operation/dashboardAllowance.ts). */
  perOperation(asker: DashboardAsker): DashboardEndpoint;
  /** When the operation's dashboard asks stop waiting for a slot (epoch ms). */
  deadline: number;
  metricRule: MetricRule;
}

/**
 * The one caller-scoped way to read reporting numbers. Queries and
 * subscriptions both read through it, and it applies, in this one place:
 * - the caller's sites (a filter of its dashboards, the rows of its rankings,
 *   the articles whose numbers it may read);
 * - the metrics its scopes let it read (checked before any table or budget);
 * - the fair share (its dashboards are asked in its name);
 * - the cache scope of every answer read here (`cacheScope`).
 * Built per operation (or per subscription) by src/operation/context.ts.
 */
export class CallerReads {
  /**
   * PRIVATE when the subgraph shapes the answer by the caller's scopes or
   * sites (the jwt proof): a shared cache (router, CDN) must not give it to
   * another caller. PUBLIC otherwise: the one service account's numbers, the
   * same for every caller (the routers check scopes at the edge then).
   */
  readonly cacheScope: AnswerScope;
  private readonly dashboardEndpoint: DashboardEndpoint;

  constructor(private readonly options: CallerReadsOptions) {
    const { caller } = options;
    this.cacheScope = caller.scopes === undefined && caller.sites === undefined ? 'PUBLIC' : 'PRIVATE';
    this.dashboardEndpoint = options.perOperation(options.dashboards.asker(options.deadline, caller.id));
  }

  /** A dashboard: every metric readable, the caller's sites as one more filter, asked within its fair share. */
  dashboard(body: DashboardQueryBody): Promise<DashboardAnswer> {
    this.readableMetrics(body.metrics, 'refuse');
    return this.dashboardEndpoint.query(restrictDashboardToSites(body, this.options.caller.sites));
  }

  /**
   * A ranking: its metric readable, then the table of the asked domain (or of
   * the caller's one site), or the shared all-sites table with only the
   * caller's sites' rows. FORBIDDEN now, before any table ask.
   */
  ranking(asked: TopArticlesRequest): RankingRead {
    this.readableMetrics([asked.metric], 'refuse');
    const sites = this.options.caller.sites;
    const { domain, keep } = rankingScope(asked.domain, sites);
    const request: TopArticlesRequest = { ...asked, ...(domain === undefined ? {} : { domain }) };
    const spec = topArticlesSpec(request);
    const keptSites = keep === undefined || sites === undefined ? null : [...sites].sort();
    return {
      key: JSON.stringify([spec.key, request.limit, keptSites]),
      table: spec.key,
      read: async (deadline, signal) => {
        const ranking = await this.options.tables.ranking(spec, keep === undefined ? request.limit : Infinity, deadline, { signal });
        const rows = keep === undefined ? ranking.rows : ranking.rows.filter((row) => keep(row.url)).slice(0, request.limit);
        const { from, to, fetchedAt, outcome } = ranking;
        return { rows: rows.map((row, index) => ({ ...row, rank: index + 1 })), from, to, fetchedAt, outcome };
      },
    };
  }

  /**
   * The metrics of these articles the caller may read: FORBIDDEN for an
   * article outside its sites; a metric outside its scopes is dropped or
   * refuses the whole read (`unreadable`). Queries load what this returns
   * through the operation's loader; a feed reads with `articles`.
   */
  articleMetrics(urls: readonly string[], metrics: readonly MetricName[], unreadable: UnreadableMetrics): MetricName[] {
    for (const url of urls) assertArticleOnSites(url, this.options.caller.sites);
    return this.readableMetrics(metrics, unreadable);
  }

  /** The articles' numbers from their table, for a subscription's feed: every article and metric checked as `articleMetrics` refuses. */
  articles(
    spec: TableSpec,
    urls: readonly string[],
    metrics: readonly MetricName[],
    deadline: number,
    signal?: AbortSignal,
  ): Promise<Map<string, Map<MetricName, Cell | Error>>> {
    this.articleMetrics(urls, metrics, 'refuse');
    return this.options.tables.articles(spec, urls, metrics, deadline, { signal });
  }

  private readableMetrics(metrics: readonly MetricName[], unreadable: UnreadableMetrics): MetricName[] {
    const scopes = this.options.caller.scopes;
    // No scopes: no jwt proof, so the routers enforce the schema's scopes at the edge.
    if (scopes === undefined) return [...metrics];
    const readable: MetricName[] = [];
    for (const metric of metrics) {
      const refusal = this.options.metricRule.refusal(metric, scopes);
      if (refusal === undefined) readable.push(metric);
      else if (unreadable === 'refuse') throw new ReadForbidden(`not readable: ${refusal}`);
    }
    return readable;
  }
}
