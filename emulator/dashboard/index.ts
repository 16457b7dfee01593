export { runDashboardQuery, runPlannedDashboardQuery, type DashboardPlan } from './query';
export type { DashboardItem, DashboardMetricResult, DashboardPoint, DashboardQuery, DashboardRow, Granularity, Metric } from './types';
export { METRICS } from './types';
