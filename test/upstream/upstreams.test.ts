import { DEMO_API_USER, startEmulator, type RunningEmulator } from '../../emulator';
import { createSignIn } from '../../src/upstream/datasources/signInRequest';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { formatError } from '../../src/graphql/errors';
import { createAgent } from '../../src/upstream/transport/agent';
import { retryingClient as createHttpClient } from '../support/httpPath';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { createLogger } from '../../src/observability/logger';
import { Secret } from '../../src/redaction/secret';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import { upstreamOptions, type ProtectionOverrides } from '../support/upstreamOptions';
import { rejection } from '../support/rejection';
import { PASS_THROUGH } from '../support/subgraphHttp';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

interface TargetStats {
  count: number;
  distinct: number;
}
type EmulatorStats = Record<'signin' | 'dashboard' | 'render', TargetStats>;

const QUERY: DashboardQueryBody = {
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: ['section'],
  metrics: ['pageViewsTotal', 'uniqueUsers'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
  limit: 5,
};

let emulator: RunningEmulator;
const opened: Upstreams[] = [];
const logger = createLogger({ logLevel: 'silent' });

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, scale: 0.02 });
});

afterAll(async () => {
  await Promise.all(opened.map((upstreams) => upstreams.close()));
  await emulator.close();
});

beforeEach(async () => {
  await hook('DELETE', '/__emulator/faults');
  await hook('DELETE', '/__emulator/stats');
});

/** Pass-through by default: these tests are about each HTTP call; the protection has its own tests. */
function upstreamsFor(
  credentials: { email: string; password: string },
  timeoutMs = 5_000,
  on = emulator,
  protection: ProtectionOverrides = PASS_THROUGH,
): Upstreams {
  const upstreams = createUpstreams(
    upstreamOptions({
      protection,
      reportingBaseUrl: on.url,
      recommenderUrl: on.url,
      email: credentials.email,
      password: new Secret(credentials.password),
      timeoutMs,
      logger,
    }),
  );
  opened.push(upstreams);
  return upstreams;
}

async function hook(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, on = emulator): Promise<unknown> {
  const response = await fetch(new URL(path, on.url), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

async function stats(on = emulator): Promise<EmulatorStats> {
  return (await hook('GET', '/__emulator/stats', undefined, on)) as EmulatorStats;
}

async function counts(on = emulator): Promise<Record<keyof EmulatorStats, number>> {
  const snapshot = await stats(on);
  return { signin: snapshot.signin.count, dashboard: snapshot.dashboard.count, render: snapshot.render.count };
}

function shown(error: UpstreamError) {
  return formatError({ message: error.message }, error, { production: true });
}

function firstExperience() {
  const [experience] = emulator.demo.experiences;
  if (experience === undefined) throw new Error('the emulator has no demo experience');
  return experience;
}

describe('against the emulator', () => {
  test('signs in with the demo user once and gets dashboard data, the second time from the cache', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER, 5_000, emulator, {});

    const before = Date.now();
    const { value: results, fetchedAt } = await upstreams.reporting.query(QUERY);
    const again = await upstreams.reporting.query(QUERY);

    expect(fetchedAt).toBeGreaterThanOrEqual(before);
    expect(fetchedAt).toBeLessThanOrEqual(Date.now());
    expect(results.map((result) => result.metric)).toEqual(['pageViewsTotal', 'uniqueUsers']);
    expect(results[0].total).toBeGreaterThan(0);
    expect(results[0].actualData.values.length).toBeGreaterThan(0);
    expect(results[0].actualData.values.length).toBeLessThanOrEqual(5);
    expect(results[0].actualData.values[0].items[0].type).toBe('section');
    expect(again).toEqual({ value: results, fetchedAt, cache: 'hit' });
    expect(await counts()).toEqual({ signin: 1, dashboard: 1, render: 0 });
  });

  test('renders recommendations of a demo experience with no sign-in', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER);
    const experience = firstExperience();

    const { value: items } = await upstreams.recommender.render({ id: experience.id, domain: experience.domain });

    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(experience.size);
    expect(items[0].publishTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await counts()).toEqual({ signin: 0, dashboard: 0, render: 1 });
  });

  test('an unknown experience is NOT_FOUND', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER);

    const error = await rejection(upstreams.recommender.render({ id: 'IL_doesNotExist0000000000', domain: 'dailyglobe.example' }));

    expect(shown(error).extensions?.code).toBe('NOT_FOUND');
  });

  test('an invalid query is BAD_USER_INPUT with the upstream field errors', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER);
    const invalid: DashboardQueryBody = {
      ...QUERY,
      groupBy: ['source'],
      metrics: ['newArticles'],
      order: { metric: 'newArticles', sort: 'DESC' },
    };

    const error = await rejection(upstreams.reporting.query(invalid));

    const formatted = shown(error);
    expect(formatted.extensions?.code).toBe('BAD_USER_INPUT');
    expect(formatted.extensions?.upstreamErrors).toEqual(error.upstreamErrors);
    expect(error.upstreamErrors?.length).toBeGreaterThan(0);
    expect((await counts()).dashboard).toBe(1);
  });

  test('a wrong password is UPSTREAM_UNAUTHENTICATED and the password is not shown', async () => {
    const password = 'definitely-not-the-password';
    const upstreams = upstreamsFor({ email: DEMO_API_USER.email, password });

    const error = await rejection(upstreams.reporting.query(QUERY));

    const formatted = shown(error);
    expect(formatted.extensions).toMatchObject({
      code: 'UPSTREAM_UNAUTHENTICATED',
      upstream: { endpoint: '/api/user/signin', status: 401 },
    });
    expect(JSON.stringify(formatted)).not.toContain(password);
    expect(await counts()).toEqual({ signin: 1, dashboard: 0, render: 0 });
  });

  test.each([
    ['reader@demo.example', 'demo-reader-password', /API role/],
    ['admin@sso.example', 'demo-admin-password', /[Aa]dmin/],
  ])('%s is UPSTREAM_FORBIDDEN with the upstream message', async (email, password, reason) => {
    const upstreams = upstreamsFor({ email, password });

    const error = await rejection(upstreams.reporting.query(QUERY));

    expect(error.status).toBe(403);
    expect(error.upstreamMessage).toMatch(reason);
    const formatted = shown(error);
    expect(formatted.extensions?.code).toBe('UPSTREAM_FORBIDDEN');
    expect(formatted.message).toContain(error.upstreamMessage);
    expect(JSON.stringify(formatted)).not.toContain(password);
  });

  test('a dashboard 401 that persists is one renewal and one retry, then UPSTREAM_UNAUTHENTICATED and the sign-in backoff', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER);
    await upstreams.reporting.query(QUERY);
    await hook('DELETE', '/__emulator/stats');
    await hook('POST', '/__emulator/faults', { target: 'dashboard', status: 401, rate: 1 });

    const error = await rejection(upstreams.reporting.query(QUERY));

    expect(shown(error).extensions?.code).toBe('UPSTREAM_UNAUTHENTICATED');
    expect(await counts()).toEqual({ signin: 1, dashboard: 2, render: 0 });

    // The renewed token was refused at once: the next operation waits out the backoff instead of signing in again.
    await hook('DELETE', '/__emulator/faults');
    const next = await rejection(upstreams.reporting.query(QUERY));
    expect(shown(next).extensions).toMatchObject({ code: 'UPSTREAM_UNAUTHENTICATED', retryAfter: expect.any(Number) });
    expect(await counts()).toEqual({ signin: 1, dashboard: 2, render: 0 });
  });

  test('a dashboard 503 is retried twice (with backoff), then UPSTREAM_UNAVAILABLE', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER);
    await upstreams.tokens.getToken();
    await hook('POST', '/__emulator/faults', { target: 'dashboard', status: 503 });

    const error = await rejection(upstreams.reporting.query(QUERY));

    expect(shown(error).extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: { status: 503 } });
    expect((await counts()).dashboard).toBe(3);
  });

  test('a reset render connection is retried twice (with backoff), then UPSTREAM_UNAVAILABLE', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER);
    const experience = firstExperience();
    await hook('POST', '/__emulator/faults', { target: 'render', reset: true });

    const error = await rejection(upstreams.recommender.render({ id: experience.id, domain: experience.domain }));

    expect(error.kind).toBe('network');
    expect(shown(error).extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((await counts()).render).toBe(3);
  });

  test('an answer slower than the timeout is UPSTREAM_TIMEOUT, without a retry', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER, 200);
    const experience = firstExperience();
    await hook('POST', '/__emulator/faults', { target: 'render', delayMs: 1_000 });

    const error = await rejection(upstreams.recommender.render({ id: experience.id, domain: experience.domain }));

    expect(error).toMatchObject({ kind: 'timeout', timeoutMs: 200 });
    expect(shown(error).extensions?.code).toBe('UPSTREAM_TIMEOUT');
    expect((await counts()).render).toBe(1);
  });

  test('a sign-in over the rate limit is UPSTREAM_RATE_LIMITED with the Retry-After seconds', async () => {
    // A throwaway email: the sign-in budget is per email, and it is spent before the password is checked.
    const agent = createAgent({ connections: UPSTREAM_PATH_DEFAULTS.connectionsPerOrigin });
    const http = createHttpClient({ dispatcher: agent, timeoutMs: 5_000 });
    const signIn = createSignIn({ baseUrl: emulator.url, email: 'flood@demo.example', password: new Secret('guess'), http });
    let limited: UpstreamError | undefined;
    try {
      for (let attempt = 0; attempt < 100 && limited === undefined; attempt += 1) {
        const error = await rejection(signIn());
        if (error.status === 429) limited = error;
        else expect(error.status).toBe(401);
      }
    } finally {
      await agent.close();
    }

    if (limited === undefined) throw new Error('the sign-in rate limit never answered 429');
    expect(limited.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(shown(limited).extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryAfter: limited.retryAfterSeconds });
  });
});

// Its own emulator: moving the clock would shift every other test's time windows.
describe('token expiry', () => {
  let own: RunningEmulator;

  beforeAll(async () => {
    own = await startEmulator({ port: 0, scale: 0.02 });
  });

  afterAll(async () => {
    await own.close();
  });

  test('an expired token (15 days later) is renewed by signing in again', async () => {
    const upstreams = upstreamsFor(DEMO_API_USER, 5_000, own);
    await upstreams.reporting.query(QUERY);
    await hook('DELETE', '/__emulator/stats', undefined, own);
    const before = await upstreams.tokens.getToken();

    await hook('POST', '/__emulator/clock', { advanceSeconds: 15 * 24 * 3600 }, own);
    await expect(upstreams.reporting.query(QUERY).then((answer) => answer.value)).resolves.toHaveLength(2);

    expect(await counts(own)).toEqual({ signin: 1, dashboard: 2, render: 0 });
    expect(await upstreams.tokens.getToken()).not.toBe(before);
  });
});
