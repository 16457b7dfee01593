import { Secret } from '../redaction/secret';
import type { EnvReader } from './env';

/** METRICS_CALLER_LABEL: what the `caller` label of the fair-share series shows (src/observability/metrics/callerLabel.ts). */
export const CALLER_LABEL_MODES = ['hashed', 'off', 'raw'] as const;
export type CallerLabelMode = (typeof CALLER_LABEL_MODES)[number];

export interface MetricsSettings {
  /** Prometheus metrics and GET /metrics (METRICS_ENABLED, default on). */
  metricsEnabled: boolean;
  /** A second listener serving only /metrics; /metrics is on PORT either way. */
  metricsPort?: number;
  /**
   * METRICS_CALLER_LABEL (default `hashed`: a short keyed hash of the caller's id, never the id, often a person's) and
   * METRICS_CALLER_LABEL_KEY (or `_FILE`): the hash's key, the same on every replica so their labels agree; unset: a
   * random key per process.
   */
  metricsCallerLabel: { mode: CallerLabelMode; key?: Secret };
}

/** The metrics' settings that no environment variable changes. */
export const METRICS_DEFAULTS = Object.freeze({
  /** Distinct operation names shown as labels; the rest share `__other__` (a client sending random names cannot grow the series). */
  operationNameLimit: 200,
});

export function readMetrics(reader: EnvReader): MetricsSettings {
  const mode = reader.oneOf('METRICS_CALLER_LABEL', CALLER_LABEL_MODES) ?? 'hashed';
  const key = reader.valueOrFile('METRICS_CALLER_LABEL_KEY');
  const settings: MetricsSettings = {
    metricsEnabled: reader.boolean('METRICS_ENABLED') ?? true,
    metricsCallerLabel: { mode, ...(key === undefined ? {} : { key: new Secret(key) }) },
  };
  const metricsPort = reader.integer('METRICS_PORT', { min: 1, max: 65_535 });
  if (metricsPort !== undefined) settings.metricsPort = metricsPort;
  return settings;
}
