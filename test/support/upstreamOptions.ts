/**
 * The one way tests build `createUpstreams` options: the configuration's
 * defaults (`upstreamPathSettings` over an empty environment, as `npm start`
 * builds them), with what a test changes on top.
 */
import { loadConfig } from '../../src/config';
import { upstreamPathSettings, type UpstreamPathSettings } from '../../src/config/upstreamPath';
import type { ProtectionOptions } from '../../src/upstream/protection';
import { IN_PROCESS_STORES, type UpstreamStores } from '../../src/upstream/stores/upstreamStores';
import type { UpstreamsOptions } from '../../src/upstream/upstreams';
import { NO_OBSERVER, safeObserver, type Observer } from '../../src/kernel/observer';
import type { Metrics } from '../../src/observability/metrics/metrics';
import { metricsObserver } from '../../src/observability/metricsObserver';

export const DEFAULT_UPSTREAM_PATH: UpstreamPathSettings = upstreamPathSettings(loadConfig({}));

/** What a test may change in the protection: any part, the breaker's fields one by one. */
export type ProtectionOverrides = Partial<Omit<ProtectionOptions, 'breaker'>> & { breaker?: Partial<ProtectionOptions['breaker']> };

/** The stores too are the configuration's without REDIS_URL (this process's own) unless the test gives the replicas' (redisUpstreamStores). */
export type UpstreamOptionsOverrides = Omit<UpstreamsOptions, keyof UpstreamPathSettings | 'stores' | 'observer' | 'metrics'> &
  Partial<Omit<UpstreamPathSettings, 'protection'>> & {
    protection?: ProtectionOverrides;
    stores?: UpstreamStores;
    /** A test's recorder of the call path's events. */
    observer?: Observer;
    /** The call path's events also recorded as metrics, as the process composes its one observer. */
    metrics?: Metrics;
  };

export function upstreamOptions(options: UpstreamOptionsOverrides): UpstreamsOptions {
  const { protection, observer, metrics, ...rest } = options;
  const defaults = DEFAULT_UPSTREAM_PATH.protection;
  return {
    ...DEFAULT_UPSTREAM_PATH,
    stores: IN_PROCESS_STORES,
    ...rest,
    observer: safeObserver(metrics === undefined ? NO_OBSERVER : metricsObserver(metrics), observer ?? NO_OBSERVER),
    ...(metrics === undefined ? {} : { metrics }),
    protection: { ...defaults, ...protection, breaker: { ...defaults.breaker, ...protection?.breaker } },
  };
}

/** The transport's configured bounds (UPSTREAM_MAX_RESPONSE_BYTES, MAX_RETRY_AFTER_SECONDS), for tests that build one. */
export function transportDefaults(): { maxResponseBytes: number; maxRetryAfterSeconds: number } {
  return { maxResponseBytes: DEFAULT_UPSTREAM_PATH.maxResponseBytes, maxRetryAfterSeconds: DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds };
}
