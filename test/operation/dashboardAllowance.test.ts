import { NO_OBSERVER } from '../../src/kernel/observer';
import { BudgetQueue } from '../../src/reporting/budget/budgetQueue';
import { MetricPlan } from '../../src/reporting/budget/metricPlan';
import type { DashboardQueryBody, MetricName } from '../../src/kernel/wire';
import type { DashboardEndpoint } from '../../src/upstream/endpoints/dashboard';
import { withDashboardAllowance } from '../../src/operation/dashboardAllowance';
import { AllowanceExceeded, UpstreamAllowance } from '../../src/operation/upstreamAllowance';
import { DashboardAsks, type DashboardAsker } from '../../src/reporting/dashboard/dashboardAsks';
import type { CacheOutcome } from '../../src/kernel/fetched';
import { FakeClock } from '../reporting/support/tablesFakes';
import { freeBudget } from '../support/freeBudget';

const body = (metric: MetricName): DashboardQueryBody => ({
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: [],
  metrics: [metric],
  order: { metric, sort: 'DESC' },
});

/** A dashboard endpoint that records every query it is asked (the shape of the work). */
function recording(fail = false, cache: CacheOutcome = 'miss') {
  const asked: string[] = [];
  const endpoint: DashboardEndpoint = {
    query: async (query) => {
      asked.push(query.metrics.join(','));
      if (fail) throw new Error('upstream down');
      const value = query.metrics.map((metric) => ({
        metric,
        total: 1,
        granularity: 'daily' as const,
        availableGranularities: ['daily' as const],
        actualData: { values: [], data: [] },
      }));
      return { value, fetchedAt: 0, cache };
    },
  };
  return { endpoint, asked };
}

/** The operation's asker over the endpoint: asks of one tick and one kind go as one query; none waits here (a slot is always free). */
function asker(endpoint: DashboardEndpoint): DashboardAsker {
  return new DashboardAsks({
    queue: new BudgetQueue({
      observer: NO_OBSERVER,
      reporting: { ...endpoint, budget: freeBudget() },
      clock: new FakeClock(0),
      outsideShare: 0,
      plan: new MetricPlan(),
    }),
  }).asker(60_000, 'anonymous');
}

describe('the dashboard within one operation (a DataLoader keyed by the body, batched by kind)', () => {
  test('identical queries, even with fields in another order, are one unit of the allowance; queries differing only in metrics one query', async () => {
    const { endpoint, asked } = recording();
    const allowance = new UpstreamAllowance(5);
    const dashboard = withDashboardAllowance(asker(endpoint), allowance);
    const reordered = Object.fromEntries(Object.entries(body('pageViewsTotal')).reverse()) as DashboardQueryBody;

    const answers = await Promise.all([
      dashboard.query(body('uniqueUsers')),
      dashboard.query(reordered),
      dashboard.query(body('pageViewsTotal')),
    ]);

    expect(asked).toEqual(['pageViewsTotal,uniqueUsers']);
    expect(answers.map((answer) => answer.value.map((result) => result.metric))).toEqual([
      ['uniqueUsers'],
      ['pageViewsTotal'],
      ['pageViewsTotal'],
    ]);
    // Each distinct body is one call of the allowance, merged or not.
    expect(allowance.calls).toBe(2);
  });

  test('bodies answered from the answer cache give their calls back, each of a merged query', async () => {
    const { endpoint } = recording(false, 'hit');
    const allowance = new UpstreamAllowance(5);
    const dashboard = withDashboardAllowance(asker(endpoint), allowance);

    await Promise.all([dashboard.query(body('pageViewsTotal')), dashboard.query(body('uniqueUsers'))]);

    expect(allowance.calls).toBe(0);
    expect(allowance.cacheHits).toBe(2);
  });

  test('distinct queries beyond the allowance fail with UPSTREAM_BUDGET_EXCEEDED and are never sent', async () => {
    const { endpoint, asked } = recording();
    const dashboard = withDashboardAllowance(asker(endpoint), new UpstreamAllowance(1));

    await expect(dashboard.query(body('pageViewsTotal'))).resolves.toMatchObject({ cache: 'miss' });
    await expect(dashboard.query(body('uniqueUsers'))).rejects.toBeInstanceOf(AllowanceExceeded);
    expect(asked).toEqual(['pageViewsTotal']);
  });

  test('a failed query is shared by the identical ones of the operation, not asked again', async () => {
    const { endpoint, asked } = recording(true);
    const dashboard = withDashboardAllowance(asker(endpoint), new UpstreamAllowance(5));

    await expect(dashboard.query(body('pageViewsTotal'))).rejects.toThrow('upstream down');
    await expect(dashboard.query(body('pageViewsTotal'))).rejects.toThrow('upstream down');
    expect(asked).toEqual(['pageViewsTotal']);
  });
});
