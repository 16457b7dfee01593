/**
 * The failure policy table (failures/policy.ts), row by row: every decision
 * the call path takes about a failure, pinned for each kind and status, and
 * read back through the places that act on it.
 */
import { classifySignInFailure } from '../../src/upstream/datasources/signInErrors';
import { formatError } from '../../src/graphql/errors';
import { FAILURE_POLICY, policyOfDetails } from '../../src/kernel/failures/policy';
import { UpstreamError, failurePolicyOf, type UpstreamErrorDetails } from '../../src/kernel/failures/upstreamError';
import { isBreakerFailure } from '../../src/upstream/stages/breaker';
import { isUpstreamOutage } from '../../src/upstream/stages/freshness';
import { builtQueryFailure, splitsOnEmptyBody, waitsForSlot } from '../../src/reporting/budget/errors';

const dashboard = { service: 'reporting', endpoint: '/api/dashboard/query' } as const;
const render = { service: 'recommender', endpoint: '/recommenderexperience/render.json' } as const;
const http = (status: number, where: Pick<UpstreamErrorDetails, 'service' | 'endpoint'> = dashboard): UpstreamErrorDetails => ({
  ...where,
  kind: 'http',
  status,
});

// [failure, retry, breaker, staleIfError, signInBackoff, answered, local, code]
const ROWS: [string, UpstreamErrorDetails, string, boolean, boolean, string | undefined, boolean, boolean, string][] = [
  ['400', http(400), 'never', false, false, 'refused', true, false, 'BAD_USER_INPUT'],
  ['401', http(401), 'never', false, false, 'refused', true, false, 'UPSTREAM_UNAUTHENTICATED'],
  ['403', http(403), 'never', false, false, 'refused', true, false, 'UPSTREAM_FORBIDDEN'],
  ['404 from render.json', http(404, render), 'never', false, false, 'unavailable', true, false, 'NOT_FOUND'],
  ['404 from the reporting host', http(404), 'never', false, false, 'unavailable', true, false, 'UPSTREAM_BAD_RESPONSE'],
  ['409', http(409), 'never', false, false, 'unavailable', true, false, 'UPSTREAM_BAD_RESPONSE'],
  ['429', http(429), 'after_pause', false, true, undefined, false, false, 'UPSTREAM_RATE_LIMITED'],
  ['500', http(500), 'never', true, true, 'unavailable', true, false, 'UPSTREAM_UNAVAILABLE'],
  ['501', http(501), 'never', true, true, 'unavailable', true, false, 'UPSTREAM_UNAVAILABLE'],
  ['502', http(502), 'backoff', true, true, 'unavailable', true, false, 'UPSTREAM_UNAVAILABLE'],
  ['503', http(503), 'backoff', true, true, 'unavailable', true, false, 'UPSTREAM_UNAVAILABLE'],
  ['504', http(504), 'backoff', true, true, 'unavailable', true, false, 'UPSTREAM_UNAVAILABLE'],
  ['http without a status', { ...dashboard, kind: 'http' }, 'never', false, false, 'unavailable', true, false, 'UPSTREAM_BAD_RESPONSE'],
  ['timeout', { ...dashboard, kind: 'timeout', timeoutMs: 100 }, 'never', true, true, 'unavailable', false, false, 'UPSTREAM_TIMEOUT'],
  [
    'ECONNRESET',
    { ...dashboard, kind: 'network', reason: 'ECONNRESET' },
    'backoff',
    true,
    true,
    'unavailable',
    false,
    false,
    'UPSTREAM_UNAVAILABLE',
  ],
  ['EPIPE', { ...dashboard, kind: 'network', reason: 'EPIPE' }, 'backoff', true, true, 'unavailable', false, false, 'UPSTREAM_UNAVAILABLE'],
  [
    'UND_ERR_SOCKET',
    { ...dashboard, kind: 'network', reason: 'UND_ERR_SOCKET' },
    'backoff',
    true,
    true,
    'unavailable',
    false,
    false,
    'UPSTREAM_UNAVAILABLE',
  ],
  [
    'ECONNREFUSED',
    { ...dashboard, kind: 'network', reason: 'ECONNREFUSED' },
    'never',
    true,
    true,
    'unavailable',
    false,
    false,
    'UPSTREAM_UNAVAILABLE',
  ],
  [
    'bad_response',
    { ...dashboard, kind: 'bad_response', reason: 'x' },
    'never',
    false,
    false,
    'unavailable',
    true,
    false,
    'UPSTREAM_BAD_RESPONSE',
  ],
  [
    'metric_unavailable',
    { ...dashboard, kind: 'metric_unavailable', metrics: ['CPM'] },
    'never',
    false,
    false,
    undefined,
    true,
    false,
    'UPSTREAM_METRIC_UNAVAILABLE',
  ],
  [
    'budget_exhausted',
    { ...dashboard, kind: 'budget_exhausted', retryAfterSeconds: 3 },
    'never',
    false,
    true,
    undefined,
    false,
    true,
    'UPSTREAM_RATE_LIMITED',
  ],
  ['circuit_open', { ...dashboard, kind: 'circuit_open' }, 'never', false, true, undefined, false, true, 'UPSTREAM_UNAVAILABLE'],
];

describe('the failure policy, row by row', () => {
  test.each(ROWS)('%s', (_name, details, retry, breaker, staleIfError, signInBackoff, answered, local, code) => {
    expect(policyOfDetails(details)).toMatchObject({ retry, breaker, staleIfError, signInBackoff, answered, local, code });

    // The places that act on a failure read the same row.
    const error = new UpstreamError(details);
    expect(isBreakerFailure(error)).toBe(breaker);
    expect(isUpstreamOutage(error)).toBe(staleIfError);
    expect(classifySignInFailure(error)).toBe(signInBackoff);
    expect(formatError({ message: 'x' }, error, { production: true }).extensions?.code).toBe(code);
  });

  test.each([400, 401])('a %i on the sign-in is a credentials problem (UPSTREAM_UNAUTHENTICATED)', (status) => {
    const error = new UpstreamError({ service: 'reporting', endpoint: '/api/user/signin', kind: 'http', status });
    expect(formatError({ message: 'x' }, error, { production: true }).extensions?.code).toBe('UPSTREAM_UNAUTHENTICATED');
  });

  test("reporting's budget queue reads its columns: only the governor's refusal waits for a slot, only the empty body splits a merged query, only a 400 on our own query is the upstream's fault", () => {
    const byName = new Map(ROWS.map(([name, details]) => [name, policyOfDetails(details)]));
    expect([...byName].filter(([, policy]) => policy.waitForSlot).map(([name]) => name)).toEqual(['budget_exhausted']);
    expect([...byName].filter(([, policy]) => policy.splitOnEmptyBody).map(([name]) => name)).toEqual(['metric_unavailable']);
    expect([...byName].filter(([, policy]) => policy.ownQuery === 'bad_response').map(([name]) => name)).toEqual(['400']);
    // The same rows, read where reporting acts on them.
    expect(waitsForSlot(new UpstreamError({ ...dashboard, kind: 'budget_exhausted', retryAfterSeconds: 3 }))).toBe(true);
    expect(waitsForSlot(new UpstreamError(http(429)))).toBe(false);
    expect(splitsOnEmptyBody(new UpstreamError({ ...dashboard, kind: 'metric_unavailable', status: 200 }))).toBe(true);
    expect(builtQueryFailure(new UpstreamError(http(400)))).toMatchObject({ kind: 'bad_response', status: 400 });
    expect(builtQueryFailure(new UpstreamError(http(403)))).toMatchObject({ kind: 'http', status: 403 });
  });

  test('every kind has a row without conditions, so no failure goes unmatched', () => {
    const kinds = [
      'http',
      'timeout',
      'network',
      'bad_response',
      'budget_exhausted',
      'circuit_open',
      'metric_unavailable',
      'caller_share_spent',
      'caller_tables_spent',
    ];
    const catchAll = FAILURE_POLICY.filter((row) => row.statuses === undefined && row.reasons === undefined && row.service === undefined);
    expect(catchAll.map((row) => row.kind).sort()).toEqual([...kinds].sort());
  });

  test('anything that is not an upstream failure has no policy: a bug is never retried, hidden or counted', () => {
    expect(failurePolicyOf(new TypeError('x'))).toBeUndefined();
    expect(isBreakerFailure(new TypeError('x'))).toBe(false);
    expect(isUpstreamOutage('boom')).toBe(false);
    expect(classifySignInFailure(undefined)).toBeUndefined();
  });
});
