import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics/metrics';
import type { SharedDependencies } from '../operation/context';
import type { ReportingService } from '../reporting/reportingService';
import type { Clock } from '../kernel/clock';
import type { Observer } from '../kernel/observer';
import type { LiveServing } from './subscriptions/liveServing';

/**
 * The process-wide services the server serves, each built once by the composition root (src/app/composeServices.ts;
 * tests call it with fakes). The server never closes them: the process's shutdown does, after the server's drain.
 */
export interface Services {
  reporting: ReportingService;
  /** Subscriptions: the live hub, its Apollo plugins and the WebSocket transport the server attaches. */
  live: LiveServing;
  recommender: SharedDependencies['recommender'];
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Served at GET /metrics when metrics are on. */
  metrics: Metrics | undefined;
  /** The process's one observer: operations, limits and loader batches are reported to it. */
  observer: Observer;
  apolloCache: KeyValueCache<string>;
  /** Stops the budget queue: no refresh or waiting ask outlives the shutdown. */
  close(): void;
}
