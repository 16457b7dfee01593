import type { EnvReader } from './env';

export interface MetricsSettings {
  /** Prometheus metrics and GET /metrics (METRICS_ENABLED, default on). */
  metricsEnabled: boolean;
  /** A second listener serving only /metrics; /metrics is on PORT either way. */
  metricsPort?: number;
}

/** The metrics' settings that no environment variable changes. */
export const METRICS_DEFAULTS = Object.freeze({
  /** Distinct operation names shown as labels; the rest share `__other__` (a client sending random names cannot grow the series). */
  operationNameLimit: 200,
});

export function readMetrics(reader: EnvReader): MetricsSettings {
  const settings: MetricsSettings = { metricsEnabled: reader.boolean('METRICS_ENABLED') ?? true };
  const metricsPort = reader.integer('METRICS_PORT', { min: 1, max: 65_535 });
  if (metricsPort !== undefined) settings.metricsPort = metricsPort;
  return settings;
}
