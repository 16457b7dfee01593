import type { DashboardEndpoint } from '../upstream/endpoints/dashboard';
import type { UpstreamAllowance } from './upstreamAllowance';

/**
 * The dashboard endpoint for one operation, each distinct dashboard query
 * taking one call from the operation's allowance: 500 aliased `dashboard`
 * fields with different arguments are 500 calls just as 500
 * `recommendations` are, while identical ones share one answer (and one
 * unit), like the render.json loader. Per request only: the memo holds this
 * caller's answers.
 */
export function withDashboardAllowance(dashboard: DashboardEndpoint, allowance: UpstreamAllowance): DashboardEndpoint {
  const asked = new Map<string, ReturnType<DashboardEndpoint['query']>>();
  return {
    query: (body) => {
      const key = JSON.stringify(body);
      let answer = asked.get(key);
      if (answer === undefined) {
        answer = allowance.tryTake() ? dashboard.query(body) : Promise.reject(allowance.exceededError());
        asked.set(key, answer);
      }
      return answer;
    },
  };
}
