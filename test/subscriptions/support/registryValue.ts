import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { Registry } from 'prom-client';
import { valueOf } from '../../support/metricsText';

/** A counter's or gauge's value in the registry's scrape text (as /metrics serves it); 0 when there is none yet. */
export async function registryValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  return valueOf(parsePrometheusTextFormat(await registry.metrics()), name, labels);
}
