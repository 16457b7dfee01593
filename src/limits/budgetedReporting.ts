import type { ReportingAPI } from '../datasources/reportingAPI';
import type { UpstreamBudget } from './upstreamBudget';

/**
 * The reporting API for one operation, each dashboard query taking one call
 * from the operation's budget: 500 aliased `dashboard` fields are 500 calls
 * just as 500 `recommendations` are.
 */
export function budgetedReporting(reporting: Pick<ReportingAPI, 'query'>, budget: UpstreamBudget): Pick<ReportingAPI, 'query'> {
  return {
    query: (body) => (budget.tryTake() ? reporting.query(body) : Promise.reject(budget.exceededError())),
  };
}
