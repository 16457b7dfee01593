import type { Agent } from 'undici';
import { TokenProvider } from '../../src/auth/tokenProvider';
import { REPORTING_SIGN_IN_ERRORS } from '../../src/upstream/datasources/signInErrors';
import { findDashboardShapeProblem, ReportingAPI } from '../../src/upstream/datasources/reportingAPI';
import { createSignIn } from '../../src/upstream/datasources/signInRequest';
import type { DashboardMetricResultWire, DashboardQueryBody } from '../../src/kernel/wire';
import { formatError } from '../../src/graphql/errors';
import { createAgent } from '../../src/upstream/transport/agent';
import { retryingClient as createHttpClient } from '../support/httpPath';
import { reportingHttpPath } from '../../src/upstream/pipeline';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { Secret } from '../../src/redaction/secret';
import { sendJson, useFakeUpstream, type FakeHandler, type RecordedRequest } from '../support/fakeUpstream';
import { rejection } from '../support/rejection';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const EMAIL = 'api@publisher.example';
const PASSWORD = 'correct horse battery staple';

const QUERY: DashboardQueryBody = {
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: ['section'],
  metrics: ['pageViewsTotal'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
};

const RESULT: DashboardMetricResultWire[] = [
  {
    metric: 'pageViewsTotal',
    total: 10,
    granularity: 'daily',
    availableGranularities: ['hourly', 'daily'],
    actualData: {
      values: [{ key: 'k1', total: 10, items: [{ id: 'Politics', value: 'Politics', type: 'section' }] }],
      data: [{ key: '2026-11-21 00:00:00', value: 10 }],
    },
  },
];

let agent: Agent;
let reporting: ReportingAPI;
let signInAnswer: FakeHandler;
let dashboardAnswer: FakeHandler;
let signIns: number;

const upstream = useFakeUpstream((request, response) => {
  if (request.path === '/base/api/user/signin') signInAnswer(request, response);
  else if (request.path === '/base/api/dashboard/query') dashboardAnswer(request, response);
  else sendJson(response, 404, { msg: 'no route' });
});

beforeEach(() => {
  signIns = 0;
  signInAnswer = (_request, response) => {
    signIns += 1;
    sendJson(response, 200, { id: 1, email: EMAIL, sitesId: 3, role: 'api', token: `token-${signIns}`, Site: { id: 3 } });
  };
  dashboardAnswer = (_request, response) => sendJson(response, 200, RESULT);
  agent = createAgent({ connections: UPSTREAM_PATH_DEFAULTS.connectionsPerOrigin });
  const http = createHttpClient({ dispatcher: agent, timeoutMs: 2_000 });
  const baseUrl = `${upstream.url}/base/`;
  const tokens = new TokenProvider({
    ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
    signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
    errors: REPORTING_SIGN_IN_ERRORS,
    signIn: createSignIn({ baseUrl, email: EMAIL, password: new Secret(PASSWORD), http }),
  });
  reporting = new ReportingAPI({ baseUrl, http: reportingHttpPath(tokens, http), now: () => FETCHED_AT });
});

afterEach(async () => {
  await agent.destroy();
});

/** The shape of the work: which endpoints were called, in order, and with which bearer token. */
function calls(): string[] {
  return upstream.requests.map((request: RecordedRequest) =>
    request.path.endsWith('/signin') ? 'signin' : `dashboard ${request.headers.authorization ?? '(no token)'}`,
  );
}

function formatted(error: UpstreamError) {
  return formatError({ message: error.message }, error, { production: true });
}

const FETCHED_AT = Date.UTC(2026, 10, 20, 12);

describe('ReportingAPI.query', () => {
  test('signs in once, sends the query with the bearer token, and reuses the token', async () => {
    await expect(reporting.query(QUERY)).resolves.toEqual({ value: RESULT, fetchedAt: FETCHED_AT });
    await expect(reporting.query(QUERY)).resolves.toEqual({ value: RESULT, fetchedAt: FETCHED_AT });

    expect(calls()).toEqual(['signin', 'dashboard Bearer token-1', 'dashboard Bearer token-1']);
    expect(JSON.parse(upstream.requests[0].body)).toEqual({ email: EMAIL, password: PASSWORD });
    expect(JSON.parse(upstream.requests[1].body)).toEqual(QUERY);
    expect(upstream.requests[1].headers['content-type']).toBe('application/json');
  });

  test('tolerates extra fields in the answer', async () => {
    const withExtras = RESULT.map((result) => ({ ...result, comparison: null, actualData: { ...result.actualData, extra: 1 } }));
    dashboardAnswer = (_request, response) => sendJson(response, 200, withExtras);

    await expect(reporting.query(QUERY)).resolves.toEqual({ value: withExtras, fetchedAt: FETCHED_AT });
  });

  test('leaves out granularities the upstream added after this subgraph was built', async () => {
    dashboardAnswer = (_request, response) =>
      sendJson(response, 200, [{ ...RESULT[0], availableGranularities: ['hourly', 'daily', 'weekly'] }]);

    const {
      value: [result],
    } = await reporting.query(QUERY);

    expect(result.availableGranularities).toEqual(['hourly', 'daily']);
  });

  test('a 401 renews the token once and retries once', async () => {
    dashboardAnswer = (request, response) =>
      request.headers.authorization === 'Bearer token-1'
        ? sendJson(response, 401, { msg: 'Unauthorized' })
        : sendJson(response, 200, RESULT);

    await expect(reporting.query(QUERY)).resolves.toEqual({ value: RESULT, fetchedAt: FETCHED_AT });

    expect(calls()).toEqual(['signin', 'dashboard Bearer token-1', 'signin', 'dashboard Bearer token-2']);
  });

  test('a 401 that persists after renewal is UPSTREAM_UNAUTHENTICATED, after exactly one renewal', async () => {
    dashboardAnswer = (_request, response) => sendJson(response, 401, { msg: 'Unauthorized' });

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ kind: 'http', status: 401, endpoint: '/api/dashboard/query' });
    expect(calls()).toEqual(['signin', 'dashboard Bearer token-1', 'signin', 'dashboard Bearer token-2']);
    expect(formatted(error).extensions?.code).toBe('UPSTREAM_UNAUTHENTICATED');
  });

  test('a vendor that refuses every token: 8 operations make 2 sign-ins and 2 dashboard calls, then wait out the backoff', async () => {
    dashboardAnswer = (_request, response) => sendJson(response, 401, { msg: 'Unauthorized' });

    const errors = [];
    for (let operation = 0; operation < 8; operation += 1) errors.push(await rejection(reporting.query(QUERY)));

    expect(calls()).toEqual(['signin', 'dashboard Bearer token-1', 'signin', 'dashboard Bearer token-2']);
    expect(errors.map((error) => formatted(error).extensions?.code)).toEqual(Array(8).fill('UPSTREAM_UNAUTHENTICATED'));
    expect(errors.slice(1).every((error) => error.retryAfterSeconds !== undefined)).toBe(true);
  });

  test('concurrent queries rejected with the same token share one renewal', async () => {
    await reporting.query(QUERY);
    dashboardAnswer = (request, response) =>
      request.headers.authorization === 'Bearer token-1'
        ? sendJson(response, 401, { msg: 'Unauthorized' })
        : sendJson(response, 200, RESULT);

    await Promise.all(Array.from({ length: 5 }, () => reporting.query(QUERY)));

    const afterFirstQuery = calls().slice(2);
    expect(afterFirstQuery.filter((call) => call === 'signin')).toHaveLength(1);
    expect(afterFirstQuery.filter((call) => call === 'dashboard Bearer token-1')).toHaveLength(5);
    expect(afterFirstQuery.filter((call) => call === 'dashboard Bearer token-2')).toHaveLength(5);
  });

  test('a 400 keeps the upstream field errors and neither renews nor retries', async () => {
    dashboardAnswer = (_request, response) =>
      sendJson(response, 400, { msg: 'Invalid params', errors: [{ path: 'metrics[0]', message: 'unknown metric "x"' }] });

    const error = await rejection(reporting.query(QUERY));

    expect(error.upstreamErrors).toEqual([{ path: 'metrics[0]', message: 'unknown metric "x"' }]);
    expect(calls()).toEqual(['signin', 'dashboard Bearer token-1']);
    expect(formatted(error).extensions).toMatchObject({ code: 'BAD_USER_INPUT', upstreamErrors: error.upstreamErrors });
  });

  test('the query is retried once after a 503, as a read', async () => {
    let answered = 0;
    dashboardAnswer = (_request, response) => {
      answered += 1;
      if (answered === 1) sendJson(response, 503, { msg: 'restarting' });
      else sendJson(response, 200, RESULT);
    };

    await expect(reporting.query(QUERY)).resolves.toEqual({ value: RESULT, fetchedAt: FETCHED_AT });
    expect(calls()).toEqual(['signin', 'dashboard Bearer token-1', 'dashboard Bearer token-1']);
  });

  test('a malformed answer is a bad_response naming the field', async () => {
    dashboardAnswer = (_request, response) => sendJson(response, 200, [{ ...RESULT[0], total: 'ten' }]);

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ kind: 'bad_response', reason: '[0].total is not a number' });
    expect(formatted(error).extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
  });
});

describe('answers larger or emptier than asked', () => {
  const rows = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      key: `k${index}`,
      total: count - index,
      items: [{ id: `s${index}`, value: `Section ${index}`, type: 'section' }],
    }));
  const withRows = (count: number) => [{ ...RESULT[0], actualData: { ...RESULT[0].actualData, values: rows(count) } }];

  test('30,000 rows (a few MB) for limit 3 are a bad answer naming the counts, not a result to cache', async () => {
    dashboardAnswer = (_request, response) => sendJson(response, 200, withRows(30_000));

    const error = await rejection(reporting.query({ ...QUERY, limit: 3 }));

    expect(error).toMatchObject({
      kind: 'bad_response',
      reason: '[0].actualData.values has 30000 rows, more than the 3 asked for (limit)',
    });
    expect(formatted(error).extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
  });

  test('exactly `limit` rows, and fewer, are an answer', async () => {
    dashboardAnswer = (_request, response) => sendJson(response, 200, withRows(3));

    await expect(reporting.query({ ...QUERY, limit: 3 })).resolves.toMatchObject({ value: withRows(3) });
    await expect(reporting.query({ ...QUERY, limit: 5 })).resolves.toMatchObject({ value: withRows(3) });
  });

  test("without a limit, more rows than the upstream's own maximum (1000) are a bad answer", async () => {
    dashboardAnswer = (_request, response) => sendJson(response, 200, withRows(1_001));

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({
      kind: 'bad_response',
      reason: '[0].actualData.values has 1001 rows, more than the 1000 asked for (limit)',
    });
  });

  test('a 204 is a bad answer, not an unavailable metric', async () => {
    dashboardAnswer = (_request, response) => {
      response.writeHead(204);
      response.end();
    };

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ kind: 'bad_response', status: 204, endpoint: '/api/dashboard/query' });
    expect(formatted(error).extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
  });

  test('a 200 with an empty body stays the live API\'s "metric not available" (contract §2)', async () => {
    dashboardAnswer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end();
    };

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ kind: 'metric_unavailable', status: 200 });
  });
});

describe('sign-in failures', () => {
  test.each([
    [401, 'Invalid credentials', 'UPSTREAM_UNAUTHENTICATED'],
    [403, 'API role not enabled for this user', 'UPSTREAM_FORBIDDEN'],
    [403, 'Admin users cannot use the API when SSO is enforced', 'UPSTREAM_FORBIDDEN'],
    [403, 'Set an API password with the forgot-password option', 'UPSTREAM_FORBIDDEN'],
  ])('a sign-in %i keeps the upstream msg %j and maps to %s', async (status, msg, code) => {
    signInAnswer = (_request, response) => sendJson(response, status, { msg });

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ kind: 'http', status, upstreamMessage: msg, endpoint: '/api/user/signin', service: 'reporting' });
    expect(calls()).toEqual(['signin']);
    const shown = formatted(error);
    expect(shown.extensions?.code).toBe(code);
    expect(shown.message).toContain(msg);
    expect(JSON.stringify(shown)).not.toContain(PASSWORD);
  });

  test('a sign-in 429 carries Retry-After', async () => {
    signInAnswer = (_request, response) => sendJson(response, 429, { msg: 'Too many requests' }, { 'retry-after': '42' });

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 42, upstreamMessage: 'Too many requests' });
    expect(formatted(error).extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryAfter: 42 });
  });

  test('an upstream that echoes the password does not get it into the error', async () => {
    signInAnswer = (request, response) => {
      const sent: { password: string } = JSON.parse(request.body);
      sendJson(response, 401, { msg: `wrong password ${sent.password}`, errors: [{ path: 'password', message: sent.password }] });
    };

    const error = await rejection(reporting.query(QUERY));

    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(PASSWORD);
    expect(JSON.stringify(formatted(error))).not.toContain(PASSWORD);
    expect(error.upstreamMessage).toBe('wrong password [redacted]');
  });

  test('a sign-in answer without a token is a bad_response', async () => {
    signInAnswer = (_request, response) => sendJson(response, 200, { id: 1, email: EMAIL });

    const error = await rejection(reporting.query(QUERY));

    expect(error).toMatchObject({ kind: 'bad_response', endpoint: '/api/user/signin' });
  });
});

describe('a sign-in token that cannot be sent as a header', () => {
  test.each([
    ['CR/LF', 'token-1\r\nX-Injected: 1'],
    ['a control character', 'token\u0000-1'],
    ['a space', 'token 1'],
    ['a non-ASCII character', 'tok\u00e9n-1'],
  ])('a token with %s is a bad sign-in answer, never sent and never kept', async (_label, token) => {
    signInAnswer = (_request, response) => sendJson(response, 200, { id: 1, email: EMAIL, token });

    const first = await rejection(reporting.query(QUERY));
    const second = await rejection(reporting.query(QUERY));

    for (const error of [first, second]) {
      expect(error).toMatchObject({ kind: 'bad_response', endpoint: '/api/user/signin', reason: expect.stringMatching(/header/) });
      expect(formatted(error).extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
      expect(JSON.stringify({ ...formatted(error), reason: error.reason })).not.toContain(token);
    }
    // The second query meets the sign-in backoff: no dashboard call was attempted with the token, which was not kept.
    expect(calls()).toEqual(['signin']);
  });
});

describe('findDashboardShapeProblem', () => {
  const [valid] = RESULT;
  const row = valid.actualData.values[0];

  test.each<[string, unknown, string]>([
    ['not an array', { ...valid }, 'expected an array of metric results'],
    ['metric missing', [{ ...valid, metric: undefined }], '[0].metric is not a string'],
    ['granularities not strings', [{ ...valid, availableGranularities: [1] }], '[0].availableGranularities is not a list of strings'],
    ['actualData missing', [{ ...valid, actualData: null }], '[0].actualData is not an object'],
    ['values not an array', [{ ...valid, actualData: { ...valid.actualData, values: {} } }], '[0].actualData.values is not an array'],
    [
      'row total missing',
      [{ ...valid, actualData: { ...valid.actualData, values: [{ ...row, total: null }] } }],
      '[0].actualData.values[0].total is not a number',
    ],
    [
      'row item broken',
      [{ ...valid, actualData: { ...valid.actualData, values: [{ ...row, items: [{ id: 1 }] }] } }],
      '[0].actualData.values[0].items[0] is not an {id, value, type} object of strings',
    ],
    [
      'point value a string',
      [{ ...valid, actualData: { ...valid.actualData, data: [{ key: 'k', value: '1' }] } }],
      '[0].actualData.data[0] is not a {key: string, value: number} object',
    ],
    [
      'series key not a time',
      [{ ...valid, actualData: { ...valid.actualData, data: [{ key: 'yesterday', value: 1 }] } }],
      '[0].actualData.data[0].key is not a "yyyy-MM-dd HH:mm:ss" time (got "yesterday")',
    ],
    [
      'series key an impossible day',
      [{ ...valid, actualData: { ...valid.actualData, data: [{ key: '2026-02-30 00:00:00', value: 1 }] } }],
      '[0].actualData.data[0].key is not a "yyyy-MM-dd HH:mm:ss" time (got "2026-02-30 00:00:00")',
    ],
    ['metric not requested', [{ ...valid, metric: 'uniqueUsers' }], '[0].metric "uniqueUsers" was not requested'],
    ['unknown granularity', [{ ...valid, granularity: 'weekly' }], '[0].granularity "weekly" is not a known granularity'],
    [
      'item of a dimension not grouped by',
      [{ ...valid, actualData: { ...valid.actualData, values: [{ ...row, items: [{ id: 'x', value: 'x', type: 'referrer' }] }] } }],
      '[0].actualData.values[0].items[0].type "referrer" is not a grouped dimension',
    ],
  ])('%s', (_label, json, problem) => {
    expect(findDashboardShapeProblem(json, QUERY)).toBe(problem);
  });

  test('a valid answer, and an empty one, have no problem', () => {
    expect(findDashboardShapeProblem(RESULT, QUERY)).toBeUndefined();
    expect(findDashboardShapeProblem([], QUERY)).toBeUndefined();
  });
});
