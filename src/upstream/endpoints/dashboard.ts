import { dashboardTtlSeconds } from '../../kernel/dashboardTtl';
import type { Served } from '../../kernel/fetched';
import { DASHBOARD_QUERY_PATH, findDashboardShapeProblem, type ReportingAPI } from '../datasources/reportingAPI';
import type { DashboardMetricResultWire, DashboardQueryBody } from '../../kernel/wire';
import type { AnswerStore } from '../stores/answerStore';
import type { Breaker } from '../stages/breaker';
import type { Observer } from '../../kernel/observer';
import { dashboardAnswerKey } from '../keys';
import { protectEndpoint } from '../pipeline';
import type { SlotGrant } from '../transport/httpClient';
import type { RateBucket } from '../stages/rateBucket';

/** What the budget queue reads and spends of the reporting budget's bucket. */
export type SlotBudget = Pick<RateBucket, 'take' | 'freeInMs' | 'onSharedAgain'>;

/** The reporting API's dashboard query, protected: what the dashboard resolvers and the article-metrics loader call. */
export interface DashboardEndpoint {
  /** `grant`: the budget queue's, for each HTTP attempt the query makes (only the queue spends the reporting budget). */
  query(body: DashboardQueryBody, grant?: SlotGrant): Promise<Served<DashboardMetricResultWire[]>>;
  /**
   * The answer cache alone (`ProtectedEndpoint.peek`): the cached answer of
   * `body` (fresh, or stale within stale-while-revalidate), else undefined;
   * never calls the upstream, spends nothing. The budget queue reads it before
   * it holds a dashboard back or refuses it over its caller's share. Absent
   * on a per-operation wrapper (operation/dashboardAllowance.ts).
   */
  peek?(body: DashboardQueryBody): Promise<Served<DashboardMetricResultWire[]> | undefined>;
  /**
   * The reporting budget's bucket in the governor's rate store (the local one or the replicas' Redis one, the
   * same key): the budget queue reads when its next slot is and grants each attempt its place from it. Absent
   * on a per-operation wrapper (operation/dashboardAllowance.ts).
   */
  budget?: SlotBudget;
}

/** The process-wide endpoint with the reporting budget's bucket: what the budget queue is built over (upstreams.ts builds it). */
export type BudgetedDashboard = Pick<DashboardEndpoint, 'query' | 'peek'> & { budget: SlotBudget };

export interface DashboardEndpointOptions {
  reporting: Pick<ReportingAPI, 'query'>;
  /** The service account: its answers are its own sites' data, so it is part of every key. */
  account: string;
  store: AnswerStore;
  breaker: Breaker;
  /** DASHBOARD_CACHE_TTL_SECONDS for windows that are still moving (see ../../kernel/dashboardTtl.ts). */
  ttlSeconds: number;
  staleIfErrorMs: number;
  now: () => number;
  observer: Observer;
}

export function createDashboardEndpoint(options: DashboardEndpointOptions): DashboardEndpoint {
  const query = protectEndpoint<DashboardQueryBody, DashboardMetricResultWire[]>({
    service: 'reporting',
    endpoint: DASHBOARD_QUERY_PATH,
    keyOf: (body) => dashboardAnswerKey(options.account, body),
    policyOf: (body, nowMs) => ({
      ttlMs: dashboardTtlSeconds(body.dates, nowMs, options.ttlSeconds) * 1000,
      staleIfErrorMs: options.staleIfErrorMs,
    }),
    isAnswer: (value, body): value is DashboardMetricResultWire[] => findDashboardShapeProblem(value, body) === undefined,
    store: options.store,
    breaker: options.breaker,
    request: (body, grant) => options.reporting.query(body, grant),
    now: options.now,
    observer: options.observer,
  });
  return { query: (body, grant) => query(body, grant), peek: (body) => query.peek(body) };
}
