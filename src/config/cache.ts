import type { EnvReader } from './env';

/** The answer cache (0 turns one off); see the call path in src/upstream/. */
export interface CacheConfig {
  renderTtlSeconds: number;
  /** For dashboard windows that reach the present; a window that ended in the past is kept an hour. */
  dashboardTtlSeconds: number;
  /** How old an answer may be and still be served when the upstream fails. */
  staleIfErrorSeconds: number;
}

export const DEFAULT_CACHE_CONFIG: Readonly<CacheConfig> = Object.freeze({
  renderTtlSeconds: 60,
  dashboardTtlSeconds: 60,
  staleIfErrorSeconds: 600,
});

const DAY_SECONDS = 86_400;

export function readCache(reader: EnvReader): CacheConfig {
  const ttl = { min: 0, max: DAY_SECONDS };
  return {
    renderTtlSeconds: reader.integer('RENDER_CACHE_TTL_SECONDS', ttl) ?? DEFAULT_CACHE_CONFIG.renderTtlSeconds,
    dashboardTtlSeconds: reader.integer('DASHBOARD_CACHE_TTL_SECONDS', ttl) ?? DEFAULT_CACHE_CONFIG.dashboardTtlSeconds,
    staleIfErrorSeconds:
      reader.integer('STALE_IF_ERROR_SECONDS', { min: 0, max: 7 * DAY_SECONDS }) ?? DEFAULT_CACHE_CONFIG.staleIfErrorSeconds,
  };
}
