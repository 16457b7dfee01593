import type { DashboardQueryInput } from './dashboardQueryInput';
import type { DashboardQueryBody } from '../../kernel/wire';
import { SortDirection } from '../../../contract';

/**
 * The upstream body of a validated query. Enum values are already upstream
 * names (codegen `enumValues`), so this only fills defaults and renames
 * `unit` to the upstream's `dimension` and a filter's `{dimension, operator,
 * values}` to the upstream's `{filter, op, value}`.
 */
export function toDashboardQueryBody(input: DashboardQueryInput): DashboardQueryBody {
  const body: DashboardQueryBody = {
    dates: toUpstreamDates(input.dates),
    filters: (input.filters ?? []).map(({ dimension, operator, values }) => ({ filter: dimension, op: operator, value: [...values] })),
    groupBy: [...(input.groupBy ?? [])],
    metrics: [...input.metrics],
    order:
      input.order != null ? { metric: input.order.metric, sort: input.order.sort } : { metric: input.metrics[0], sort: SortDirection.DESC },
  };
  if (input.granularity != null) body.granularity = input.granularity;
  if (input.limit != null) body.limit = input.limit;
  if (input.from != null) body.from = input.from;
  return body;
}

/**
 * Range ends pass through as given: a date-only end means its whole day to
 * the upstream, which a normalized instant would lose.
 */
function toUpstreamDates({ last, range }: DashboardQueryInput['dates']): DashboardQueryBody['dates'] {
  if (last != null) return { last: { number: last.number, dimension: last.unit } };
  if (range != null) return { range: { start: range.start, end: range.end } };
  throw new Error('toDashboardQueryBody: the query has neither dates.last nor dates.range; validate it first');
}
