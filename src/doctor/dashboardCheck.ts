import { buildUrl } from '../upstream/transport/url';
import { DASHBOARD_QUERY_PATH } from '../upstream/datasources/reportingAPI';
import { fail, pass, type CheckResult } from './checkResult';
import { callUpstream, describeAnswer, type UpstreamAnswer } from './upstreamCall';

export const DASHBOARD_CHECK = 'dashboard query';

/**
 * The smallest valid query (contract §2): the five mandatory fields, one
 * metric, no filters, no grouping, the shortest common window. Granularity is
 * optional and left to the host.
 */
const MINIMAL_DASHBOARD_QUERY = Object.freeze({
  dates: { last: { number: 1, dimension: 'day' } },
  filters: [],
  groupBy: [],
  metrics: ['pageViewsTotal'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
});

export interface DashboardTarget {
  baseUrl: string;
  token: string;
  timeoutMs: number;
  /** Removes secrets from the upstream's words (see callUpstream). */
  scrub: (text: string) => string;
}

/** One dashboard query: one slot of the account's budget, which the caller has announced. */
export async function checkDashboard(target: DashboardTarget): Promise<CheckResult> {
  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream({
      url: buildUrl(target.baseUrl, DASHBOARD_QUERY_PATH),
      method: 'POST',
      body: MINIMAL_DASHBOARD_QUERY,
      token: target.token,
      timeoutMs: target.timeoutMs,
      scrub: target.scrub,
    });
  } catch (error) {
    return fail(DASHBOARD_CHECK, (error as Error).message, 'run again; if it persists, check the reporting host (see the host line above)');
  }
  if (answer.status === 200) return readAnswer(answer);
  const seen = describeAnswer(answer);
  switch (answer.status) {
    case 401:
      return fail(
        DASHBOARD_CHECK,
        `the token from the sign-in just made was refused: ${seen}`,
        'check that the sign-in and the dashboard are the same host',
      );
    case 403:
      return fail(DASHBOARD_CHECK, `refused: ${seen}`, 'ask an administrator to give the user the API role and access to the dashboard');
    case 429:
      return fail(
        DASHBOARD_CHECK,
        `rate limited: ${seen}`,
        `the account's query budget is spent (a running subgraph on the same account shares it); wait ${answer.retryAfterSeconds ?? 60} s, or run with --no-spend`,
      );
    case 400:
      return fail(
        DASHBOARD_CHECK,
        `the minimal query was refused: ${seen}`,
        'the API no longer accepts the documented query; compare it with docs/upstream-contract.md §2',
      );
    default:
      return fail(
        DASHBOARD_CHECK,
        `unexpected answer: ${seen}`,
        answer.status >= 500 ? 'the reporting host failed; run again later' : 'check REPORTING_BASE_URL',
      );
  }
}

function readAnswer(answer: UpstreamAnswer): CheckResult {
  if (answer.text.trim() === '') {
    // Contract §2: how the live API says that a metric is not available to the account.
    return fail(
      DASHBOARD_CHECK,
      '200 with an empty body: the metric pageViewsTotal is not available to this account',
      "check the account's analytics plan with the vendor",
    );
  }
  const first: unknown = Array.isArray(answer.json) ? answer.json[0] : undefined;
  const total = typeof first === 'object' && first !== null && 'total' in first ? first.total : undefined;
  if (typeof total !== 'number') {
    return fail(
      DASHBOARD_CHECK,
      `200 but not a dashboard answer: ${describeAnswer(answer)}`,
      'check that REPORTING_BASE_URL is the reporting API itself',
    );
  }
  return pass(DASHBOARD_CHECK, `200, pageViewsTotal over the last day: ${total}`);
}
