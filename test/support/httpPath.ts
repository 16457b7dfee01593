/**
 * The HTTP-level stages as pipeline.ts composes them, for tests that drive
 * them without a whole `createUpstreams`: retry over the transport, or retry
 * over the governor over any client.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { httpPath } from '../../src/upstream/pipeline';
import { NO_OBSERVER } from '../../src/kernel/observer';
import type { GovernorStageOptions } from '../../src/upstream/stages/governorStage';
import { retryStage } from '../../src/upstream/stages/retry';
import type { BackoffOptions } from '../../src/upstream/transport/backoff';
import { DEFAULT_UPSTREAM_PATH, transportDefaults } from './upstreamOptions';
import { DeadlineTicks } from '../../src/upstream/transport/deadlines';
import { createHttpClient, type HttpClient, type HttpClientOptions } from '../../src/upstream/transport/httpClient';

type Warn = (details: object, message: string) => void;

export interface RetryingClientOptions extends Omit<HttpClientOptions, 'maxResponseBytes' | 'maxRetryAfterSeconds' | 'deadlines'> {
  deadlines?: DeadlineTicks;
  maxResponseBytes?: number;
  maxRetryAfterSeconds?: number;
  backoff?: BackoffOptions;
  logger?: { warn: Warn };
}

/** Retry (stage 10) over the transport (stage 12): what a caller without a governed rate gets. */
export function retryingClient(options: RetryingClientOptions): HttpClient {
  const { backoff, logger, ...transport } = options;
  const deadlines = transport.deadlines ?? new DeadlineTicks();
  return retryStage({
    backoff: backoff ?? DEFAULT_UPSTREAM_PATH.backoff,
    timeoutMs: transport.timeoutMs,
    deadlines,
    sleep: (ms) => sleep(ms),
    logger: logger ?? { warn: () => undefined },
    observer: NO_OBSERVER,
  })(createHttpClient({ ...transportDefaults(), ...transport, deadlines }));
}

/** Retry, governor and the given client (a transport, or a scripted fake): stages 10–12. */
export function governedPath(
  options: GovernorStageOptions & { http: HttpClient; timeoutMs: number; backoff?: BackoffOptions },
): HttpClient {
  return httpPath({
    retry: {
      backoff: options.backoff ?? DEFAULT_UPSTREAM_PATH.backoff,
      timeoutMs: options.timeoutMs,
      deadlines: new DeadlineTicks(),
      sleep: (ms) => sleep(ms),
      logger: { warn: () => undefined },
      observer: options.observer,
    },
    governor: options,
    transport: options.http,
  });
}
