import { ApolloServer } from '@apollo/server';
import { GraphQLError, locatedError, type GraphQLFormattedError } from 'graphql';
import {
  describeUpstreamFailure,
  ErrorCode,
  formatError,
  invalidArguments,
  rejectInvalid,
  upstreamErrorCode,
} from '../../src/graphql/errors';
import { UpstreamError, type UpstreamErrorDetails } from '../../src/kernel/failures/upstreamError';

const SIGN_IN = { service: 'reporting', endpoint: '/api/user/signin' } as const;
const DASHBOARD = { service: 'reporting', endpoint: '/api/dashboard/query' } as const;
const RENDER = { service: 'recommender', endpoint: '/recommenderexperience/render.json' } as const;

const PASSWORD = 'demo-api-password';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIiwiZXhwIjo5OTk5OTk5OTk5fQ.c2lnbmF0dXJl';

/** What Apollo Server hands to formatError for an error thrown by a resolver at `recommendations`. */
function fromResolver(error: Error): { formatted: GraphQLFormattedError; error: GraphQLError } {
  const located = locatedError(error, undefined, ['recommendations', 0]);
  return {
    error: located,
    formatted: {
      message: located.message,
      locations: [{ line: 2, column: 3 }],
      path: ['recommendations', 0],
      extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['Error: at somewhere.ts:1'] },
    },
  };
}

function format(details: UpstreamErrorDetails, production = true): GraphQLFormattedError {
  const { formatted, error } = fromResolver(new UpstreamError(details));
  return formatError(formatted, error, { production });
}

describe('UpstreamError → code', () => {
  test.each<[string, UpstreamErrorDetails, ErrorCode]>([
    ['dashboard 400', { ...DASHBOARD, kind: 'http', status: 400 }, 'BAD_USER_INPUT'],
    ['render 400', { ...RENDER, kind: 'http', status: 400 }, 'BAD_USER_INPUT'],
    ['sign-in 400', { ...SIGN_IN, kind: 'http', status: 400 }, 'UPSTREAM_UNAUTHENTICATED'],
    ['sign-in 401', { ...SIGN_IN, kind: 'http', status: 401 }, 'UPSTREAM_UNAUTHENTICATED'],
    ['dashboard 401', { ...DASHBOARD, kind: 'http', status: 401 }, 'UPSTREAM_UNAUTHENTICATED'],
    ['sign-in 403', { ...SIGN_IN, kind: 'http', status: 403 }, 'UPSTREAM_FORBIDDEN'],
    ['dashboard 403', { ...DASHBOARD, kind: 'http', status: 403 }, 'UPSTREAM_FORBIDDEN'],
    ['render 404', { ...RENDER, kind: 'http', status: 404 }, 'NOT_FOUND'],
    ['dashboard 404', { ...DASHBOARD, kind: 'http', status: 404 }, 'UPSTREAM_BAD_RESPONSE'],
    ['render 409', { ...RENDER, kind: 'http', status: 409 }, 'UPSTREAM_BAD_RESPONSE'],
    ['dashboard 302', { ...DASHBOARD, kind: 'http', status: 302 }, 'UPSTREAM_BAD_RESPONSE'],
    ['sign-in 429', { ...SIGN_IN, kind: 'http', status: 429 }, 'UPSTREAM_RATE_LIMITED'],
    ['render 429', { ...RENDER, kind: 'http', status: 429 }, 'UPSTREAM_RATE_LIMITED'],
    ['dashboard 500', { ...DASHBOARD, kind: 'http', status: 500 }, 'UPSTREAM_UNAVAILABLE'],
    ['render 502', { ...RENDER, kind: 'http', status: 502 }, 'UPSTREAM_UNAVAILABLE'],
    ['render 503', { ...RENDER, kind: 'http', status: 503 }, 'UPSTREAM_UNAVAILABLE'],
    ['sign-in 504', { ...SIGN_IN, kind: 'http', status: 504 }, 'UPSTREAM_UNAVAILABLE'],
    ['timeout', { ...DASHBOARD, kind: 'timeout', timeoutMs: 200 }, 'UPSTREAM_TIMEOUT'],
    ['network', { ...RENDER, kind: 'network', reason: 'ECONNRESET' }, 'UPSTREAM_UNAVAILABLE'],
    ['bad response', { ...RENDER, kind: 'bad_response', reason: 'recommendation is not an array' }, 'UPSTREAM_BAD_RESPONSE'],
  ])('%s → %s, with extensions.upstream', (_label, details, code) => {
    const shown = format(details);

    expect(upstreamErrorCode(new UpstreamError(details))).toBe(code);
    expect(shown.extensions?.code).toBe(code);
    const upstream =
      details.status === undefined
        ? { service: details.service, endpoint: details.endpoint }
        : { service: details.service, endpoint: details.endpoint, status: details.status };
    expect(shown.extensions?.upstream).toEqual(upstream);
    expect(shown.path).toEqual(['recommendations', 0]);
    expect(shown.locations).toEqual([{ line: 2, column: 3 }]);
    expect(shown.extensions).not.toHaveProperty('stacktrace');
  });
});

describe('UpstreamError → message and extensions', () => {
  test.each<[string, UpstreamErrorDetails, string]>([
    [
      'wrong credentials',
      { ...SIGN_IN, kind: 'http', status: 401, upstreamMessage: 'Invalid credentials' },
      'The reporting API rejected the configured credentials (REPORTING_EMAIL / REPORTING_PASSWORD): Invalid credentials',
    ],
    [
      'a token refused after renewal',
      { ...DASHBOARD, kind: 'http', status: 401, upstreamMessage: 'Unauthorized' },
      'The reporting API rejected the access token, even after signing in again: Unauthorized',
    ],
    [
      'no API role',
      { ...SIGN_IN, kind: 'http', status: 403, upstreamMessage: 'API role not enabled for this user' },
      'The reporting API refused access for the configured account: API role not enabled for this user',
    ],
    [
      'an SSO admin',
      { ...SIGN_IN, kind: 'http', status: 403, upstreamMessage: 'Admin users cannot use the API when SSO is enforced' },
      'The reporting API refused access for the configured account: Admin users cannot use the API when SSO is enforced',
    ],
    [
      'rate limited',
      { ...DASHBOARD, kind: 'http', status: 429, retryAfterSeconds: 30, upstreamMessage: 'Too many requests' },
      'The reporting API rate limit was exceeded; retry after 30 s: Too many requests',
    ],
    ['a timeout', { ...RENDER, kind: 'timeout', timeoutMs: 200 }, 'The recommender did not answer within 200 ms'],
    ['a reset', { ...RENDER, kind: 'network', reason: 'ECONNRESET' }, 'The recommender could not be reached (ECONNRESET)'],
    ['a 503', { ...RENDER, kind: 'http', status: 503 }, 'The recommender is unavailable (HTTP 503)'],
    [
      'a malformed body',
      { ...RENDER, kind: 'bad_response', reason: 'recommendation is not an array' },
      'The recommender sent a malformed response: recommendation is not an array',
    ],
    ['an unexpected status', { ...DASHBOARD, kind: 'http', status: 404 }, 'The reporting API answered with an unexpected HTTP 404'],
    [
      'an unknown experience',
      { ...RENDER, kind: 'http', status: 404, upstreamMessage: 'Experience not found' },
      'The recommender found no recommender experience with this id: Experience not found',
    ],
    [
      'invalid params',
      {
        ...DASHBOARD,
        kind: 'http',
        status: 400,
        upstreamMessage: 'Invalid params',
        upstreamErrors: [{ path: 'metrics[0]', message: 'unknown metric' }, { message: 'bad window' }],
      },
      'The reporting API rejected the request as invalid: Invalid params (metrics[0]: unknown metric; bad window)',
    ],
  ])('%s', (_label, details, message) => {
    expect(format(details).message).toBe(message);
  });

  test('429 carries retryAfter in seconds; without the header it is absent', () => {
    expect(format({ ...RENDER, kind: 'http', status: 429, retryAfterSeconds: 12 }).extensions).toMatchObject({ retryAfter: 12 });
    expect(format({ ...RENDER, kind: 'http', status: 429 }).extensions).not.toHaveProperty('retryAfter');
  });

  test('a 400 lists the upstream field errors in extensions.upstreamErrors', () => {
    const upstreamErrors = [{ path: 'order.metric', message: 'must be one of metrics' }];

    expect(format({ ...DASHBOARD, kind: 'http', status: 400, upstreamErrors }).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { ...DASHBOARD, status: 400 },
      upstreamErrors,
    });
  });

  test('outside production the stack trace is kept', () => {
    expect(format({ ...RENDER, kind: 'timeout' }, false).extensions?.stacktrace).toEqual(['Error: at somewhere.ts:1']);
  });

  test('an UpstreamError raised outside a resolver (e.g. in the context) is mapped too', () => {
    const wrapped = new GraphQLError('Context creation failed: x', {
      originalError: new UpstreamError({ ...SIGN_IN, kind: 'http', status: 403 }),
    });

    const shown = formatError({ message: wrapped.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, wrapped, { production: true });

    expect(shown.extensions?.code).toBe('UPSTREAM_FORBIDDEN');
  });
});

describe('no secret leaks', () => {
  test('only the UpstreamError fields reach the client, never other data in the inputs', () => {
    const error = Object.assign(new UpstreamError({ ...DASHBOARD, kind: 'http', status: 401, upstreamMessage: `token ${TOKEN} expired` }), {
      request: { headers: { authorization: `Bearer ${TOKEN}` }, body: { password: PASSWORD } },
    });
    const { formatted, error: located } = fromResolver(error);
    const poisoned = { ...formatted, extensions: { ...formatted.extensions, password: PASSWORD, token: TOKEN } };

    for (const production of [true, false]) {
      const json = JSON.stringify(formatError(poisoned, located, { production }));

      expect(json).not.toContain(PASSWORD);
      expect(json).not.toContain(TOKEN);
      expect(json).toContain('UPSTREAM_UNAUTHENTICATED');
    }
  });

  test('a token in a passing-through or unknown error message is removed', () => {
    const coded = new GraphQLError(`bad header Bearer ${TOKEN}`, { extensions: { code: 'BAD_USER_INPUT' } });
    const unknown = new Error(`crashed on ${TOKEN}`);

    const shownCoded = formatError({ message: coded.message, extensions: { code: 'BAD_USER_INPUT' } }, coded, { production: false });
    const shownUnknown = formatError({ message: unknown.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, unknown, {
      production: false,
    });

    expect(JSON.stringify(shownCoded)).not.toContain(TOKEN);
    expect(shownCoded.message).toBe('bad header Bearer [redacted]');
    expect(JSON.stringify(shownUnknown)).not.toContain(TOKEN);
  });
});

describe('other errors', () => {
  test('GraphQL errors with a code pass through; production drops only the stack trace', () => {
    const formatted = { message: 'Cannot query field "x"', extensions: { code: 'GRAPHQL_VALIDATION_FAILED', stacktrace: ['at x'] } };
    const error = new GraphQLError(formatted.message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });

    expect(formatError(formatted, error, { production: true })).toEqual({
      message: 'Cannot query field "x"',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(formatError(formatted, error, { production: false })).toEqual(formatted);
  });

  test('anything else is INTERNAL_SERVER_ERROR with a generic message and no stack in production', () => {
    const { formatted, error } = fromResolver(new TypeError("Cannot read properties of undefined (reading 'x') at /srv/app/src/db.ts"));

    expect(formatError(formatted, error, { production: true })).toEqual({
      message: 'Internal server error',
      locations: [{ line: 2, column: 3 }],
      path: ['recommendations', 0],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(formatError(formatted, error, { production: false })).toEqual(formatted);
  });

  test('invalidArguments lists every problem in the message and in extensions.invalidArgs', () => {
    const one = invalidArguments([{ path: 'query.limit', message: 'must be from 1 to 1000 (got 0)' }]);
    expect(one.message).toBe('Invalid argument query.limit: must be from 1 to 1000 (got 0)');
    expect(one.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      invalidArgs: [{ path: 'query.limit', message: 'must be from 1 to 1000 (got 0)' }],
    });
    const two = invalidArguments([
      { path: 'a', message: 'x' },
      { path: 'b', message: 'y' },
    ]);
    expect(two.message).toBe('2 invalid arguments: a: x; b: y');
    expect(() => invalidArguments([])).toThrow('called without a problem');
  });

  test('rejectInvalid throws only when there is a problem', () => {
    expect(() => rejectInvalid([])).not.toThrow();
    expect(() => rejectInvalid([{ path: 'id', message: 'must not be empty' }])).toThrow('Invalid argument id: must not be empty');
  });
});

describe('as the formatError hook of a real ApolloServer', () => {
  const typeDefs = 'type Query { upstream: String, crash: String, invalid: String }';
  const resolvers = {
    Query: {
      upstream: () => {
        throw new UpstreamError({ ...RENDER, kind: 'http', status: 404, upstreamMessage: 'Experience not found' });
      },
      crash: () => {
        throw new Error(`internal detail ${PASSWORD}`);
      },
      invalid: () => {
        throw invalidArguments([{ path: 'experienceId', message: 'must not be empty' }]);
      },
    },
  };

  test.each([true, false])('production=%s', async (production) => {
    const server = new ApolloServer({
      typeDefs,
      resolvers,
      includeStacktraceInErrorResponses: !production,
      formatError: (formatted, error) => formatError(formatted, error, { production }),
    });
    await server.start();
    try {
      const response = await server.executeOperation({ query: '{ upstream crash invalid }' });
      if (response.body.kind !== 'single') throw new Error('expected a single result');
      const errors = response.body.singleResult.errors ?? [];
      const byPath = Object.fromEntries(errors.map((error) => [String(error.path?.[0]), error]));

      expect(byPath.upstream.extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { ...RENDER, status: 404 } });
      expect(byPath.invalid.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        invalidArgs: [{ path: 'experienceId', message: 'must not be empty' }],
      });
      expect(byPath.crash.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      if (production) {
        expect(byPath.crash.message).toBe('Internal server error');
        expect(JSON.stringify(errors)).not.toContain(PASSWORD);
        expect(JSON.stringify(errors)).not.toContain('stacktrace');
      } else {
        expect(byPath.crash.message).toContain('internal detail');
      }
    } finally {
      await server.stop();
    }
  });
});

describe('refusals of the call path', () => {
  test('a budget refused locally is UPSTREAM_RATE_LIMITED with retryAfter and no upstream status', () => {
    const formatted = format({ ...DASHBOARD, kind: 'budget_exhausted', retryAfterSeconds: 42 });
    expect(formatted.extensions).toEqual({
      code: 'UPSTREAM_RATE_LIMITED',
      retryAfter: 42,
      upstream: { service: 'reporting', endpoint: '/api/dashboard/query' },
    });
    expect(formatted.message).toBe('The reporting API request budget is spent (the subgraph did not send the request); retry after 42 s');
  });

  test('an open circuit is UPSTREAM_UNAVAILABLE and says so', () => {
    const formatted = format({ ...RENDER, kind: 'circuit_open' });
    expect(formatted.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(formatted.message).toBe('The recommender is failing repeatedly; calls are suspended for a short cool-down');
  });
});

describe('one table for every upstream error kind', () => {
  test.each<[string, UpstreamErrorDetails]>([
    ['http', { ...DASHBOARD, kind: 'http', status: 403, upstreamMessage: 'API role not enabled for this user' }],
    ['http without a message', { ...RENDER, kind: 'http', status: 502 }],
    ['timeout', { ...DASHBOARD, kind: 'timeout', timeoutMs: 200 }],
    ['timeout without a limit', { ...DASHBOARD, kind: 'timeout' }],
    ['network', { ...RENDER, kind: 'network', reason: 'ECONNRESET' }],
    ['bad response', { ...RENDER, kind: 'bad_response', reason: '[0].total is not a number' }],
    ['budget', { ...DASHBOARD, kind: 'budget_exhausted', retryAfterSeconds: 42 }],
    ['circuit', { ...RENDER, kind: 'circuit_open' }],
  ])('%s: its account for logs is what UpstreamError says', (_label, details) => {
    expect(describeUpstreamFailure(details)).toBe(new UpstreamError(details).message);
  });
});
