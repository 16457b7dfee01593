import { dashboardTtlSeconds } from '../../kernel/dashboardTtl';
import type { Served } from '../../kernel/fetched';
import { DASHBOARD_QUERY_PATH, findDashboardShapeProblem, type ReportingAPI } from '../datasources/reportingAPI';
import type { DashboardMetricResultWire, DashboardQueryBody } from '../../kernel/wire';
import type { AnswerStore } from '../stores/answerStore';
import type { Breaker } from '../stages/breaker';
import type { UpstreamObserver } from '../observer';
import { dashboardAnswerKey } from '../keys';
import { protectEndpoint } from '../pipeline';

/** The reporting API's dashboard query, protected: what the dashboard resolvers and the article-metrics loader call. */
export interface DashboardEndpoint {
  query(body: DashboardQueryBody): Promise<Served<DashboardMetricResultWire[]>>;
  /**
   * The answer cache alone (`ProtectedEndpoint.peek`): the cached answer of
   * `body` (fresh, or stale within stale-while-revalidate), else undefined;
   * never calls the upstream, spends nothing. The budget queue reads it before
   * it holds a dashboard back or refuses it over its caller's share. Absent
   * on a per-operation wrapper (operation/dashboardAllowance.ts).
   */
  peek?(body: DashboardQueryBody): Promise<Served<DashboardMetricResultWire[]> | undefined>;
  /**
   * Tells `listener` each time the shared budget is back after this replica
   * spent its own share (Redis came back, Governor.onBudgetShared): a next
   * unit learned from a refusal meanwhile no longer holds. Absent without a
   * governor behind the endpoint. Returns the unsubscribe.
   */
  onBudgetShared?(listener: () => void): () => void;
}

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
  observer: UpstreamObserver;
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
    request: (body) => options.reporting.query(body),
    now: options.now,
    observer: options.observer,
  });
  return { query, peek: (body) => query.peek(body) };
}
