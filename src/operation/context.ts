import { AnalyticsMemo } from '../reporting/analytics/operationMemo';
import type { AskOutcome, TablesReader } from '../reporting/tables/analyticsTables';
import type { ReportingService } from '../reporting/reportingService';
import type { LiveNumbers } from '../reporting/live/liveNumbers';
import type { AnalyticsConfig, Config } from '../config';
import type { RenderParams } from '../kernel/wire';
import { createArticleMetricsLoader, type ArticleMetricsLoader } from './loaders/articleMetrics';
import { createRecommendationsLoader, type RecommendationsLoader } from './loaders/recommendations';
import { countingCacheHits } from './cacheHits';
import { withDashboardAllowance } from './dashboardAllowance';
import { UpstreamAllowance } from './upstreamAllowance';
import type { Logger } from '../observability/logger';
import { OPEN_CALLER, type Caller } from '../auth/callers/caller';
import type { Observer } from '../kernel/observer';
import type { RenderEndpoint } from '../upstream/endpoints/render';
import { CallerReads, type MetricRule } from '../reporting/reads/callerReads';

/** What every resolver receives (codegen `contextType`). Built per GraphQL request. */
export interface Context {
  /**
   * The caller's one read path of reporting numbers (src/reporting/reads/callerReads.ts): its sites, the metrics
   * its scopes allow, its fair share and the cache scope of what it reads. Its dashboards take from this
   * operation's allowance; identical queries share one answer, queries of the operation that differ only in
   * metrics one upstream query, and so do those of every operation while they wait in the budget queue for the
   * next slot (until `analyticsDeadline`).
   */
  reads: CallerReads;
  /** Per request: its cache holds what this caller asked for. */
  recommendations: RecommendationsLoader;
  /** Per request: every `Article.analytics` of the operation joins its batches. */
  articleMetrics: ArticleMetricsLoader;
  /** The process-wide analytics tables every operation's asks are answered from, read as this operation's caller (through `reads`). */
  analyticsTables: TablesReader;
  /** When this operation's asks stop waiting for a slot (epoch ms): its start plus ANALYTICS_ASK_DEADLINE_MS. */
  analyticsDeadline: number;
  /** How each analytics ask of this operation was answered, in order (for the operation log). */
  askOutcomes: AskOutcome[];
  recordAsk(outcome: AskOutcome): void;
  /** The clock of this operation's time readings (cache hints); tests pin it. */
  now: () => number;
  /** Per request: window and selection readings shared by every article of the operation. */
  analyticsMemo: AnalyticsMemo;
  /** The answer TTLs, which the resolvers turn into cache hints for the response's `cache-control` header. */
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Per request: the upstream calls this operation may still make (its allowance); every loader takes from it. */
  allowance: UpstreamAllowance;
  /** REPORTING_MAX_ROWS: the most rows one dashboard query may ask for. */
  maxRows: number;
  /** Who asks (src/web/callerGate.ts): the id the budget's share counts, the scopes and sites the caller may read. */
  caller: Caller;
  /** Process-wide: the Subscription fields' hub (absent where subscriptions are not served). */
  live?: LiveNumbers;
}

export type CacheTtls = Pick<Config['cache'], 'renderTtlSeconds' | 'dashboardTtlSeconds'>;

/** The process-wide pieces every request's context is built from: built once (src/index.ts, or buildServer for tests). */
export interface SharedDependencies {
  /** The analytics tables, the dashboards' asks and the budget queue they wait in, process-wide (src/reporting/reportingService.ts). */
  reportingService: ReportingService;
  recommender: RenderEndpoint;
  renderMaxConcurrency: number;
  analytics: Pick<AnalyticsConfig, 'askDeadlineMs'>;
  cacheTtls: CacheTtls;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Clock of the ask deadlines and of the cache hints; tests pin it. Default Date.now. */
  now?: () => number;
  /** The Subscription fields' hub (src/reporting/live/liveNumbers.ts); absent, no subscriptions. */
  live?: LiveNumbers;
  /** MAX_UPSTREAM_CALLS_PER_OPERATION. */
  maxUpstreamCallsPerOperation: number;
  /** REPORTING_MAX_ROWS. */
  reportingMaxRows: number;
  /** The process's one observer: each loader batch is reported to it. */
  observer: Pick<Observer, 'batchLoaded'>;
  /** What reading each metric needs, from the schema (src/graphql/access/metricRule.ts): the read path checks each caller's scopes against it. */
  metricRule: MetricRule;
}

/**
 * Called once per GraphQL request. Loaders are created here and only here:
 * a module-level loader would serve one caller's cached answers to the next.
 */
export function createContext(shared: SharedDependencies, caller: Caller = OPEN_CALLER): Context {
  return new OperationContext(shared, caller);
}

/**
 * One operation's context. Its read path, loaders and memo are built when a
 * resolver first reads them: a `recommendations` operation never builds the
 * analytics' loaders, and what an operation never reads is not kept alive
 * across its upstream wait (the raw path's profile at 50 in flight: whatever
 * lives across the wait is copied by the young-generation collector, and
 * promoted). Getters on the prototype, so Apollo's shallow copy of a context
 * (`executeOperation`, WebSocket subscriptions) keeps them.
 */
class OperationContext implements Context {
  readonly now: () => number;
  readonly analyticsDeadline: number;
  readonly askOutcomes: AskOutcome[] = [];
  readonly cacheTtls: CacheTtls;
  readonly logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  readonly allowance: UpstreamAllowance;
  readonly maxRows: number;
  readonly live?: LiveNumbers;
  private builtReads: CallerReads | undefined;
  private builtRecommendations: RecommendationsLoader | undefined;
  private builtArticleMetrics: ArticleMetricsLoader | undefined;
  private builtTables: TablesReader | undefined;
  private builtMemo: AnalyticsMemo | undefined;

  constructor(
    private readonly shared: SharedDependencies,
    readonly caller: Caller,
  ) {
    this.now = shared.now ?? Date.now;
    this.analyticsDeadline = this.now() + shared.analytics.askDeadlineMs;
    this.cacheTtls = shared.cacheTtls;
    this.logger = shared.logger;
    this.allowance = new UpstreamAllowance(shared.maxUpstreamCallsPerOperation);
    this.maxRows = shared.reportingMaxRows;
    if (shared.live !== undefined) this.live = shared.live;
  }

  get reads(): CallerReads {
    const allowance = this.allowance;
    return (this.builtReads ??= new CallerReads({
      caller: this.caller,
      tables: this.analyticsTables,
      dashboards: this.shared.reportingService.dashboards,
      perOperation: (asker) => withDashboardAllowance(asker, allowance),
      deadline: this.analyticsDeadline,
      metricRule: this.shared.metricRule,
    }));
  }

  get recommendations(): RecommendationsLoader {
    return (this.builtRecommendations ??= this.recommendationsLoader());
  }

  get articleMetrics(): ArticleMetricsLoader {
    return (this.builtArticleMetrics ??= createArticleMetricsLoader({ tables: this.analyticsTables, deadline: this.analyticsDeadline }));
  }

  get analyticsTables(): TablesReader {
    // The caller's id goes with each table ask too: the tables no store holds it makes the subgraph fetch count against its cap.
    return (this.builtTables ??= this.shared.reportingService.tables.forCaller(this.caller.id));
  }

  get analyticsMemo(): AnalyticsMemo {
    return (this.builtMemo ??= new AnalyticsMemo());
  }

  recordAsk(outcome: AskOutcome): void {
    this.askOutcomes.push(outcome);
  }

  private recommendationsLoader(): RecommendationsLoader {
    const { shared, allowance } = this;
    const recommender: RenderEndpoint = {
      render: countingCacheHits((params: RenderParams) => shared.recommender.render(params), allowance),
    };
    return createRecommendationsLoader(recommender, {
      maxConcurrency: shared.renderMaxConcurrency,
      allowance,
      onBatch: (size: number) => shared.observer.batchLoaded('recommendations', size),
    });
  }
}
