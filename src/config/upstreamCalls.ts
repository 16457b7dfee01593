import { LIVE_MAX_ROWS_PER_PAGE, MAX_LIMIT } from '../../contract';
import type { EnvReader } from './env';

/** How each upstream call is made and bounded, whichever upstream it goes to. */
export interface UpstreamCallSettings {
  upstreamTimeoutMs: number;
  renderMaxConcurrency: number;
  /** An upstream body larger than this is abandoned (UPSTREAM_BAD_RESPONSE naming the size). */
  upstreamMaxResponseBytes: number;
  /** A `Retry-After` longer than this (or unparseable) is clamped to it. */
  maxRetryAfterSeconds: number;
  /** Rows one dashboard query may ask for (`limit`); more is BAD_USER_INPUT before any call. */
  reportingMaxRows: number;
  /** How long a refused sign-in (401/403) is remembered before it is tried again; doubles while it keeps failing. */
  signinFailureBackoffSeconds: number;
}

export const UPSTREAM_CALL_DEFAULTS: Readonly<UpstreamCallSettings> = Object.freeze({
  upstreamTimeoutMs: 10_000,
  renderMaxConcurrency: 8,
  upstreamMaxResponseBytes: 8 * 1024 * 1024,
  maxRetryAfterSeconds: 300,
  reportingMaxRows: LIVE_MAX_ROWS_PER_PAGE,
  signinFailureBackoffSeconds: 60,
});

/** The upstream's own maximum `limit` (contract §2). */
export const UPSTREAM_MAX_ROWS = MAX_LIMIT;

/** The longest a refused sign-in is remembered, however often it failed (15 minutes). */
const MAX_SIGNIN_FAILURE_BACKOFF_SECONDS = 900;

export function readUpstreamCalls(reader: EnvReader): UpstreamCallSettings {
  const defaults = UPSTREAM_CALL_DEFAULTS;
  return {
    upstreamTimeoutMs: reader.integer('UPSTREAM_TIMEOUT_MS', { min: 1, max: 600_000 }) ?? defaults.upstreamTimeoutMs,
    renderMaxConcurrency: reader.integer('RENDER_MAX_CONCURRENCY', { min: 1, max: 1_000 }) ?? defaults.renderMaxConcurrency,
    upstreamMaxResponseBytes:
      reader.integer('UPSTREAM_MAX_RESPONSE_BYTES', { min: 1_024, max: 1024 ** 3 }) ?? defaults.upstreamMaxResponseBytes,
    maxRetryAfterSeconds: reader.integer('MAX_RETRY_AFTER_SECONDS', { min: 1, max: 86_400 }) ?? defaults.maxRetryAfterSeconds,
    reportingMaxRows: reader.integer('REPORTING_MAX_ROWS', { min: 1, max: UPSTREAM_MAX_ROWS }) ?? defaults.reportingMaxRows,
    signinFailureBackoffSeconds:
      reader.integer('SIGNIN_FAILURE_BACKOFF_SECONDS', { min: 1, max: MAX_SIGNIN_FAILURE_BACKOFF_SECONDS }) ??
      defaults.signinFailureBackoffSeconds,
  };
}
