import type { DateWindowInput } from '../__generated__/resolvers-types';
import type { MetricName } from '../datasources/wire';
import { Metric, TimeUnit } from '../enums';

/**
 * buildSubgraphSchema coerces argument defaults before it applies the enum
 * value maps (src/resolvers/enums.ts), so an enum inside a default
 * (`metric: Metric = PAGE_VIEWS_TOTAL`, `unit: DAY` in a default window)
 * reaches the resolver under its schema name instead of the upstream name.
 * These accept either and return the upstream name.
 */
function toUpstreamName<M extends Readonly<Record<string, string>>>(map: M, value: string): M[keyof M] {
  const upstream = Object.values(map).find((name) => name === value) ?? (Object.hasOwn(map, value) ? map[value] : undefined);
  if (upstream === undefined) throw new Error(`${JSON.stringify(value)} is neither a schema name nor an upstream name of this enum`);
  return upstream as M[keyof M];
}

export function metricFromArgument(value: string): MetricName {
  return toUpstreamName(Metric, value);
}

export function windowFromArgument(window: DateWindowInput): DateWindowInput {
  if (window.last == null) return window;
  return { ...window, last: { number: window.last.number, unit: toUpstreamName(TimeUnit, window.last.unit) } };
}
