import type { EnvReader } from './env';

/**
 * When `/health/ready` turns `degraded` (503): the event loop's lag stayed
 * above a limit for a while. A replica whose loop lags answers every request
 * late (health checks, queries, sockets, callback heartbeats): the load
 * balancer should send traffic to the others until it recovers.
 */
export interface ReadinessConfig {
  /** READINESS_MAX_EVENT_LOOP_LAG_MS: the lag above which the loop counts as lagging; 0 never degrades. */
  maxEventLoopLagMs: number;
  /** READINESS_EVENT_LOOP_LAG_SECONDS: how long the lag must stay above the limit before readiness says `degraded`. */
  eventLoopLagSeconds: number;
}

const DEFAULT_READINESS_CONFIG: ReadinessConfig = Object.freeze({
  // Far above a healthy replica's lag (milliseconds, a GC pause of a few hundred), far below a probe's timeout.
  maxEventLoopLagMs: 1_000,
  // Longer than one slow burst (a large refresh's fan-out), shorter than a probe period or two.
  eventLoopLagSeconds: 10,
});

export function readReadiness(reader: EnvReader): ReadinessConfig {
  return {
    maxEventLoopLagMs:
      reader.integer('READINESS_MAX_EVENT_LOOP_LAG_MS', { min: 0, max: 60_000 }) ?? DEFAULT_READINESS_CONFIG.maxEventLoopLagMs,
    eventLoopLagSeconds:
      reader.integer('READINESS_EVENT_LOOP_LAG_SECONDS', { min: 1, max: 600 }) ?? DEFAULT_READINESS_CONFIG.eventLoopLagSeconds,
  };
}
