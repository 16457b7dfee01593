import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { Config } from '../config';
import { upstreamPathSettings } from '../config/upstreamPath';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics/metrics';
import { sharedCallerSlots } from '../redis/reporting/redisCallerSlots';
import { SYSTEM_CLOCK } from '../kernel/clock';
import { sharedAnalyticsBoard } from '../redis/reporting/redisAnalyticsBoard';
import { connectRefreshChannel } from '../redis/reporting/refreshChannel';
import { sharedTableStore } from '../redis/reporting/redisTableStore';
import { TableRefreshes } from '../reporting/tables/refreshes';
import { MemoryTableStore } from '../reporting/tables/tableStore';
import { metricsObserver } from '../observability/metricsObserver';
import { NO_OBSERVER, safeObserver } from '../kernel/observer';
import { operationLog } from '../observability/operationLog';
import { connectSharedState, type SharedState } from '../redis/connection/sharedState';
import { createUpstreams, type Upstreams, type UpstreamsOptions } from '../upstream/upstreams';
import { IN_PROCESS_STORES } from '../upstream/stores/upstreamStores';
import { redisUpstreamStores } from '../redis/upstream/redisUpstreamStores';
import type { ShutdownStep } from '../web/shutdown';
import type { Services } from '../web/services';
import { composeServices } from './composeServices';
import { exposedCollectGarbage } from '../web/subscriptions/reclaimAfterFlood';

/** Where the upstream is: the configured hosts and account, or the embedded emulator's (src/index.ts decides). */
export type UpstreamTarget = Pick<UpstreamsOptions, 'reportingBaseUrl' | 'recommenderUrl' | 'email' | 'password'>;

export interface ComposedProcess {
  services: Services;
  upstreams: Upstreams;
  /** Shared state through Redis (REDIS_URL); undefined without it. */
  shared: SharedState | undefined;
  /** Closing what was composed here, in order: after the server's drain, before tracing and the metrics server. */
  shutdownSteps: ShutdownStep[];
}

/**
 * The process's real pieces (Redis, the upstream call path, the tables' stores, the refresh channel)
 * composed into its services, each built once (src/app/composeServices.ts, which tests call with fakes).
 */
export async function composeProcess(
  config: Config,
  target: UpstreamTarget,
  logger: Logger,
  metrics: Metrics | undefined,
): Promise<ComposedProcess> {
  // The one observer: every event of the call path, the budget queue, the live numbers, the operations and Redis.
  const observer = safeObserver(metrics === undefined ? NO_OBSERVER : metricsObserver(metrics), operationLog(logger));
  const shared =
    config.redis === undefined ? undefined : await connectSharedState(config.redis, logger, (reason) => observer.redisRefused(reason));
  const upstreams = createUpstreams({
    ...target,
    ...upstreamPathSettings(config),
    logger,
    observer,
    // The answer cache, the rates and the token: this process's, or the replicas' through Redis.
    stores: shared === undefined ? IN_PROCESS_STORES : redisUpstreamStores(shared.redis),
    ...(metrics === undefined ? {} : { metrics }),
  });
  // Subscriptions: every write of the tables; with Redis, every replica's (docs/subscriptions.md).
  const refreshes = new TableRefreshes();
  const refreshChannel =
    shared === undefined || config.redis === undefined ? undefined : connectRefreshChannel(shared.redis, config.redis.keyPrefix, refreshes);
  const services = composeServices({
    config,
    dashboard: upstreams.reporting,
    recommender: upstreams.recommender,
    clock: SYSTEM_CLOCK,
    logger,
    metrics,
    observer,
    tableStore: shared === undefined ? new MemoryTableStore() : sharedTableStore(shared.redis, config, Date.now),
    tablesShared: shared !== undefined,
    board: shared === undefined ? undefined : sharedAnalyticsBoard(shared.redis, config),
    callerSlots: shared === undefined ? undefined : sharedCallerSlots(shared.redis, config),
    refreshes,
    // APQ and the response cache: in Redis when replicas share state, so a query registered on one serves all.
    apolloCache: shared === undefined ? new InMemoryLRUCache<string>() : shared.apolloCache,
    collectGarbage: exposedCollectGarbage(),
  });
  const shutdownSteps: ShutdownStep[] = [
    // After the drain, before the connections and Redis it uses: no refresh or waiting ask starts on a closing pool.
    { name: 'reporting service', run: async () => services.close() },
    { name: 'upstream connections', run: () => upstreams.close() },
  ];
  if (refreshChannel !== undefined) shutdownSteps.push({ name: 'redis refresh channel', run: () => refreshChannel.close() });
  if (shared !== undefined) shutdownSteps.push({ name: 'redis', run: () => shared.close() });
  return { services, upstreams, shared, shutdownSteps };
}
