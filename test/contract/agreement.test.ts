/**
 * The subgraph and the emulator are two programs that must apply the same
 * dashboard rules (contract/). Each row of the table is a query; the
 * subgraph's validation (on the GraphQL input) and the emulator's (on the wire
 * body the subgraph would send) must both accept it or both refuse it.
 */
import type { DashboardQueryInput } from '../../src/graphql/__generated__/resolvers-types';
import { toDashboardQueryBody } from '../../src/reporting/dashboard/toQueryBody';
import { validateDashboardQuery } from '../../src/reporting/dashboard/validate';
import { validateDashboardQuery as emulatorValidate } from '../../emulator/dashboard/validate';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection, TimeUnit } from '../../contract';
import {
  ARTICLE_DIMENSION_NAMES,
  FILTER_OPERATORS,
  GRANULARITY_NAMES,
  MAX_GROUP_BY,
  MAX_LIMIT,
  METRIC_NAMES,
  TIME_UNIT_NAMES,
  TRAFFIC_DIMENSION_NAMES,
  type DimensionName,
} from '../../contract';

const NOW = Date.UTC(2026, 10, 20, 12);
const DIMENSION_NAMES: readonly DimensionName[] = [...TRAFFIC_DIMENSION_NAMES, ...ARTICLE_DIMENSION_NAMES];

/** A valid query (last 7 days of page views); `overrides` replace top-level fields. */
function query(overrides: Partial<DashboardQueryInput> = {}): DashboardQueryInput {
  return {
    dates: { last: { number: 7, unit: TimeUnit.DAY } },
    filters: [],
    groupBy: [],
    metrics: [Metric.PAGE_VIEWS_TOTAL],
    limit: 100,
    from: 0,
    ...overrides,
  };
}

interface Verdicts {
  subgraph: boolean;
  emulator: boolean;
}

function verdicts(input: DashboardQueryInput): Verdicts {
  return {
    // With the cap at the contract's own maximum: a lower REPORTING_MAX_ROWS refuses more, on purpose.
    subgraph: validateDashboardQuery(input, { maxRows: MAX_LIMIT }).length === 0,
    emulator: emulatorValidate(toDashboardQueryBody(input), NOW).ok,
  };
}

const windows: DashboardQueryInput['dates'][] = [
  { last: { number: 1, unit: TimeUnit.MINUTE } },
  { last: { number: 1440, unit: TimeUnit.MINUTE } },
  { last: { number: 1441, unit: TimeUnit.MINUTE } },
  { last: { number: 24, unit: TimeUnit.HOUR } },
  { last: { number: 25, unit: TimeUnit.HOUR } },
  { last: { number: 744, unit: TimeUnit.HOUR } },
  { last: { number: 745, unit: TimeUnit.HOUR } },
  { last: { number: 31, unit: TimeUnit.DAY } },
  { last: { number: 32, unit: TimeUnit.DAY } },
  { last: { number: 3660, unit: TimeUnit.DAY } },
  { last: { number: 3661, unit: TimeUnit.DAY } },
  { last: { number: 4, unit: TimeUnit.WEEK } },
  { last: { number: 5, unit: TimeUnit.WEEK } },
  { last: { number: 1, unit: TimeUnit.MONTH } },
  { last: { number: 2, unit: TimeUnit.MONTH } },
  { last: { number: 522, unit: TimeUnit.WEEK } },
  { last: { number: 523, unit: TimeUnit.WEEK } },
  { last: { number: 122, unit: TimeUnit.MONTH } },
  { last: { number: 123, unit: TimeUnit.MONTH } },
  { last: { number: 2_147_483_647, unit: TimeUnit.MONTH } },
  { last: { number: 0, unit: TimeUnit.DAY } },
  { range: { start: '2026-11-01', end: '2026-11-01' } },
  { range: { start: '2026-11-01', end: '2026-11-02' } },
  { range: { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' } },
  { range: { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00.001Z' } },
  { range: { start: '2026-10-01', end: '2026-10-31' } },
  { range: { start: '2026-10-01', end: '2026-11-01' } },
  { range: { start: '2016-01-01', end: '2026-01-07' } },
  { range: { start: '2016-01-01', end: '2026-01-08' } },
  { range: { start: '1900-01-01', end: '9999-12-31' } },
  { range: { start: '2026-11-02', end: '2026-11-01' } },
  { range: { start: '2026-02-30', end: '2026-03-01' } },
];

/** Each rule of the contract, with bodies on both sides of it. */
const table: Record<string, Partial<DashboardQueryInput>[]> = {
  'the window (each unit, the 3,660-day limit, a range) and the granularities it offers': windows.flatMap((dates) =>
    [undefined, ...GRANULARITY_NAMES].map((granularity) => ({ dates, granularity })),
  ),
  'every time unit, at one and at the longest window': TIME_UNIT_NAMES.flatMap((unit) => [
    { dates: { last: { number: 1, unit } } },
    { dates: { last: { number: 3660 * 1440, unit } } },
  ]),
  'the group-by limit and repeats': [
    { groupBy: [Dimension.URL, Dimension.SECTION, Dimension.AUTHOR].slice(0, MAX_GROUP_BY) },
    { groupBy: [Dimension.URL, Dimension.SECTION, Dimension.AUTHOR, Dimension.DOMAIN].slice(0, MAX_GROUP_BY + 1) },
    { groupBy: [Dimension.URL, Dimension.URL] },
    ...DIMENSION_NAMES.map((dimension) => ({ groupBy: [dimension] })),
  ],
  'metrics: every name, none, repeats, the order metric': [
    ...METRIC_NAMES.map((metric) => ({ metrics: [metric], order: { metric, sort: SortDirection.ASC } })),
    { metrics: [] },
    { metrics: [Metric.CPM, Metric.CPM] },
    { metrics: [Metric.CPM], order: { metric: Metric.RPM, sort: SortDirection.ASC } },
  ],
  'newArticles and the traffic dimensions': [
    ...DIMENSION_NAMES.flatMap((dimension) => [
      { metrics: [Metric.NEW_ARTICLES], groupBy: [dimension] },
      { metrics: [Metric.NEW_ARTICLES], filters: [{ dimension, operator: FilterOperator.EQ, values: ['x'] }] },
    ]),
    { metrics: [Metric.NEW_ARTICLES], groupBy: [Dimension.SECTION, Dimension.AUTHOR, Dimension.DOMAIN] },
    { metrics: [Metric.NEW_ARTICLES], filters: [{ dimension: Dimension.TITLE, operator: FilterOperator.LIKE, values: ['budget'] }] },
  ],
  'filter operators on every dimension, and empty values': [
    ...DIMENSION_NAMES.flatMap((dimension) => FILTER_OPERATORS.map((operator) => ({ filters: [{ dimension, operator, values: ['x'] }] }))),
    { filters: [{ dimension: Dimension.SECTION, operator: FilterOperator.EQ, values: [] }] },
  ],
  'limit and from': [
    { limit: 0 },
    { limit: 1 },
    { limit: MAX_LIMIT },
    { limit: MAX_LIMIT + 1 },
    { from: -1 },
    { from: 0 },
    { from: 2_147_483_647 },
  ],
};

describe('the subgraph and the emulator agree on the dashboard contract', () => {
  it.each(Object.entries(table))('%s', (_rule, rows) => {
    const accepted = new Set<boolean>();
    for (const overrides of rows) {
      const input = query(overrides);
      const { subgraph, emulator } = verdicts(input);
      accepted.add(subgraph);
      expect({ overrides, accepted: subgraph }).toEqual({ overrides, accepted: emulator });
    }
    // A rule whose rows all pass (or all fail) would check nothing.
    expect([...accepted].sort()).toEqual([false, true]);
  });

  it('the enum values the subgraph sends are the contract names', () => {
    expect(Object.values(Metric).sort()).toEqual([...METRIC_NAMES].sort());
    expect(Object.values(Dimension).sort()).toEqual([...DIMENSION_NAMES].sort());
    expect(Object.values(FilterOperator).sort()).toEqual([...FILTER_OPERATORS].sort());
    expect(Object.values(Granularity)).toEqual([...GRANULARITY_NAMES]);
    expect(Object.values(TimeUnit)).toEqual([...TIME_UNIT_NAMES]);
  });
});
