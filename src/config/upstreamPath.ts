import type { Config } from './index';
import { UPSTREAM_CALL_DEFAULTS } from './upstreamCalls';

const HOUR_MS = 3_600_000;

/**
 * The upstream path's settings that no environment variable changes, each
 * written once; with the ones read from the environment (`upstreamPathSettings`)
 * they make the complete options `createUpstreams` takes.
 */
export const UPSTREAM_PATH_DEFAULTS = Object.freeze({
  /** Retries after the first attempt, and their "equal jitter" exponential pauses (stages/retry.ts). */
  backoff: Object.freeze({ retries: 2, baseDelayMs: 50, maxDelayMs: 1_000 }),
  /** Consecutive upstream failures that open a circuit. */
  breakerFailureThreshold: 5,
  /**
   * Sockets per upstream origin. Sized for the load: 50 operations in flight with a render.json call each,
   * plus a router's `_entities` batches (up to RENDER_MAX_CONCURRENCY calls per operation), must not queue
   * for a socket in our own pool.
   */
  connectionsPerOrigin: 128,
  /** How long an idle keep-alive socket is kept for reuse, and the most an upstream's keep-alive hint may extend it (transport/agent.ts). */
  keepAlive: Object.freeze({ timeoutMs: 10_000, maxTimeoutMs: 60_000 }),
  /**
   * The in-process answer cache (stores/memoryAnswerStore.ts): most entries, and most bytes (approximated as JSON
   * characters × 2, UTF-16), so neither a few huge dashboards nor many small answers grow it without limit.
   */
  answerStore: Object.freeze({ maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 }),
  /**
   * When the reporting token is replaced (auth/tokenLifetime.ts): at most `safetyMarginMs` before it ends (a tenth
   * of its lifetime for short tokens), and the lifetime assumed when it carries no usable `exp` (the documented 14 days).
   */
  tokenRenewal: Object.freeze({ safetyMarginMs: HOUR_MS, fallbackTtlMs: 14 * 24 * HOUR_MS }),
  /** The sign-in backoff's fixed rest (SIGNIN_FAILURE_BACKOFF_SECONDS sets the first refused pause). */
  signInBackoff: Object.freeze({ refusedMaxMs: 15 * 60_000, unavailableBaseMs: 5_000, unavailableMaxMs: 60_000 }),
});

/**
 * The whole sign-in backoff with SIGNIN_FAILURE_BACKOFF_SECONDS unset: what `upstreamPathSettings` gives a
 * configuration that sets nothing, for the token providers tests build without a configuration.
 */
export const SIGN_IN_BACKOFF_DEFAULTS = Object.freeze({
  refusedBaseMs: UPSTREAM_CALL_DEFAULTS.signinFailureBackoffSeconds * 1000,
  ...UPSTREAM_PATH_DEFAULTS.signInBackoff,
});

/** What createUpstreams takes from the configuration: everything but the target, the logger and the shared state. */
export interface UpstreamPathSettings {
  timeoutMs: number;
  maxConnectionsPerOrigin: number;
  protection: { cache: Config['cache']; governor: Config['governor']; breaker: Config['breaker'] & { failureThreshold: number } };
  maxResponseBytes: number;
  maxRetryAfterSeconds: number;
  backoff: { retries: number; baseDelayMs: number; maxDelayMs: number };
  signInBackoff: { refusedBaseMs: number; refusedMaxMs: number; unavailableBaseMs: number; unavailableMaxMs: number };
}

export function upstreamPathSettings(config: Config): UpstreamPathSettings {
  return {
    timeoutMs: config.upstreamTimeoutMs,
    maxConnectionsPerOrigin: UPSTREAM_PATH_DEFAULTS.connectionsPerOrigin,
    protection: {
      cache: config.cache,
      governor: config.governor,
      breaker: { ...config.breaker, failureThreshold: UPSTREAM_PATH_DEFAULTS.breakerFailureThreshold },
    },
    maxResponseBytes: config.upstreamMaxResponseBytes,
    maxRetryAfterSeconds: config.maxRetryAfterSeconds,
    backoff: { ...UPSTREAM_PATH_DEFAULTS.backoff },
    signInBackoff: { refusedBaseMs: config.signinFailureBackoffSeconds * 1000, ...UPSTREAM_PATH_DEFAULTS.signInBackoff },
  };
}
