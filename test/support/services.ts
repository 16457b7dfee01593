/**
 * The process-wide services over a test's fakes, composed by the subgraph's own composition root
 * (src/app/composeServices.ts): every part the process passes, each defaulted here to its in-process
 * form (the system clock, memory stores, no Redis, no metrics) unless the test gives its own.
 */
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { composeServices, type ServiceParts, type ServicesConfig } from '../../src/app/composeServices';
import { SYSTEM_CLOCK } from '../../src/kernel/clock';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { MemoryTableStore } from '../../src/reporting/tables/tableStore';
import { metricsObserver } from '../../src/observability/metricsObserver';
import { NO_OBSERVER, safeObserver } from '../../src/kernel/observer';
import { operationLog } from '../../src/observability/operationLog';
import { buildServer, type BuiltServer, type ServerConfig, type ServerDependencies, type ServerOptions } from '../../src/web/server';
import type { Services } from '../../src/web/services';

/** The two endpoints a test always gives; any other part it may. */
export type TestServiceParts = Pick<ServiceParts, 'dashboard' | 'recommender'> & Partial<Omit<ServiceParts, 'config'>>;

export function testServices(config: ServicesConfig, given: TestServiceParts): Services {
  const { observer, ...parts } = given;
  const logger = parts.logger ?? { debug() {}, info() {}, warn() {}, error() {} };
  return composeServices({
    config,
    clock: SYSTEM_CLOCK,
    logger,
    metrics: parts.metrics,
    // As the process composes its one observer (the metrics, the operation log), and the test's recorder beside them.
    observer: safeObserver(
      parts.metrics === undefined ? NO_OBSERVER : metricsObserver(parts.metrics),
      operationLog(logger),
      observer ?? NO_OBSERVER,
    ),
    tableStore: new MemoryTableStore(),
    tablesShared: false,
    board: undefined,
    callerSlots: undefined,
    refreshes: new TableRefreshes(),
    apolloCache: new InMemoryLRUCache<string>(),
    collectGarbage: undefined,
    ...parts,
  });
}

/** A server over test services, as the process builds one; its stop() also closes the services, as the process's shutdown does. */
export function buildTestServer(
  config: ServerConfig,
  given: TestServiceParts & ServerDependencies,
  options: ServerOptions = {},
): BuiltServer & { services: Services } {
  const { redisMode, readinessDetails, persistedManifest, subscriptionGate, ...parts } = given;
  const deps: ServerDependencies = {
    ...(redisMode === undefined ? {} : { redisMode }),
    ...(readinessDetails === undefined ? {} : { readinessDetails }),
    ...(persistedManifest === undefined ? {} : { persistedManifest }),
    ...(subscriptionGate === undefined ? {} : { subscriptionGate }),
  };
  const services = testServices(config, parts);
  const server = buildServer(config, services, deps, options);
  return {
    ...server,
    services,
    async stop() {
      await server.stop();
      services.close();
    },
  };
}
