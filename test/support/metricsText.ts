import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { Histogram, type Registry } from 'prom-client';

/** GET /metrics, checked for status and content type, parsed by a Prometheus text-format parser. */
export async function scrape(url: string): Promise<PrometheusFamily[]> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/plain')) throw new Error(`GET ${url} answered content-type ${contentType}`);
  return parsePrometheusTextFormat(await response.text());
}

function findSample(families: PrometheusFamily[], name: string, labels: Record<string, string>): PrometheusSample | undefined {
  const family = families.find((candidate) => candidate.name === name);
  return family?.metrics.find((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));
}

/** A counter's or gauge's value for the sample whose labels include `labels`; 0 when there is none yet. */
export function valueOf(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  return Number(findSample(families, name, labels)?.value ?? 0);
}

/**
 * A histogram's observation count for the series whose labels include
 * `labels`; 0 when there is none yet. Read from the registry because the
 * text parser merges the series of a labelled histogram into one.
 */
export async function countOf(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!(metric instanceof Histogram)) throw new Error(`no histogram ${name}`);
  const { values } = await metric.get();
  const count = values.find(
    (value) => value.metricName === `${name}_count` && Object.entries(labels).every(([key, expected]) => value.labels[key] === expected),
  );
  return count?.value ?? 0;
}

export function familyNames(families: PrometheusFamily[]): string[] {
  return families.map((family) => family.name);
}
