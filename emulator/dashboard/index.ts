export { runDashboardQuery } from './query';
export { validateDashboardQuery } from './validate';
export type { DashboardItem, DashboardMetricResult, DashboardPoint, DashboardQuery, DashboardRow, Granularity, Metric } from './types';
export { METRICS, GRANULARITIES } from './types';
