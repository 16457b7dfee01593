import type { DashboardQueryBody, MetricName } from '../../src/upstream/datasources/wire';
import type { DashboardEndpoint } from '../../src/upstream/endpoints/dashboard';
import { withDashboardAllowance } from '../../src/operation/dashboardAllowance';
import { UpstreamAllowance } from '../../src/operation/upstreamAllowance';

const body = (metric: MetricName): DashboardQueryBody => ({
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: [],
  metrics: [metric],
  order: { metric, sort: 'DESC' },
});

/** A dashboard endpoint that records every query it is asked (the shape of the work). */
function recording(fail = false) {
  const asked: string[] = [];
  const endpoint: DashboardEndpoint = {
    query: async (query) => {
      asked.push(query.metrics.join(','));
      if (fail) throw new Error('upstream down');
      return { value: [], fetchedAt: 0, cache: 'miss' };
    },
  };
  return { endpoint, asked };
}

describe('the dashboard within one operation (a DataLoader keyed by the body)', () => {
  test('identical queries, even with fields in another order, are one call and one unit of the allowance', async () => {
    const { endpoint, asked } = recording();
    const allowance = new UpstreamAllowance(5);
    const dashboard = withDashboardAllowance(endpoint, allowance);
    const reordered = Object.fromEntries(Object.entries(body('pageViewsTotal')).reverse()) as DashboardQueryBody;

    await Promise.all([dashboard.query(body('pageViewsTotal')), dashboard.query(reordered), dashboard.query(body('uniqueUsers'))]);

    expect(asked).toEqual(['pageViewsTotal', 'uniqueUsers']);
    expect(allowance.calls).toBe(2);
  });

  test('distinct queries beyond the allowance fail with UPSTREAM_BUDGET_EXCEEDED and are never sent', async () => {
    const { endpoint, asked } = recording();
    const dashboard = withDashboardAllowance(endpoint, new UpstreamAllowance(1));

    await expect(dashboard.query(body('pageViewsTotal'))).resolves.toMatchObject({ cache: 'miss' });
    await expect(dashboard.query(body('uniqueUsers'))).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_BUDGET_EXCEEDED' } });
    expect(asked).toEqual(['pageViewsTotal']);
  });

  test('a failed query is shared by the identical ones of the operation, not asked again', async () => {
    const { endpoint, asked } = recording(true);
    const dashboard = withDashboardAllowance(endpoint, new UpstreamAllowance(5));

    await expect(dashboard.query(body('pageViewsTotal'))).rejects.toThrow('upstream down');
    await expect(dashboard.query(body('pageViewsTotal'))).rejects.toThrow('upstream down');
    expect(asked).toEqual(['pageViewsTotal']);
  });
});
