import type { ReportingAPI } from '../datasources/reportingAPI';
import type { UpstreamBudget } from './upstreamBudget';

type Query = ReportingAPI['query'];

/**
 * The reporting API for one operation, each distinct dashboard query taking
 * one call from the operation's budget: 500 aliased `dashboard` fields with
 * different arguments are 500 calls just as 500 `recommendations` are, while
 * identical ones share one answer (and one unit), like the render.json loader.
 * Per request only: the memo holds this caller's answers.
 */
export function budgetedReporting(reporting: Pick<ReportingAPI, 'query'>, budget: UpstreamBudget): Pick<ReportingAPI, 'query'> {
  const asked = new Map<string, ReturnType<Query>>();
  return {
    query: (body) => {
      const key = JSON.stringify(body);
      let answer = asked.get(key);
      if (answer === undefined) {
        answer = budget.tryTake() ? reporting.query(body) : Promise.reject(budget.exceededError());
        asked.set(key, answer);
      }
      return answer;
    },
  };
}
