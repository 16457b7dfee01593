import { SignJWT } from 'jose';
import type { RunningEmulator } from '../../emulator';
import { apiToken, call, dashboardQuery, signIn, startTestEmulator, type ErrorBody } from '../support/emulator';

interface MetricResult {
  metric: string;
  total: number;
  granularity: string;
  availableGranularities: string[];
  actualData: {
    values: { key: string; total: number; items: { id: string; value: string; type: string }[] }[];
    data: { key: string; value: number }[];
  };
}

const DAY_SECONDS = 86_400;

describe('POST /api/dashboard/query', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ tokenTtlSeconds: 3 * DAY_SECONDS });
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  const query = (body: unknown, authorization?: string) =>
    call<MetricResult[] & ErrorBody>(emulator, '/api/dashboard/query', {
      body,
      headers: authorization === undefined ? {} : { authorization },
    });

  it('answers one result per metric, in request order, over every stored page view', async () => {
    const body = dashboardQuery({
      dates: { last: { number: 31, dimension: 'day' } },
      metrics: ['uniqueUsers', 'pageViewsTotal'],
    });
    const { status, body: results } = await query(body, `Bearer ${token}`);
    expect(status).toBe(200);
    expect(results.map((r) => r.metric)).toEqual(['uniqueUsers', 'pageViewsTotal']);
    const pageViews = results[1];
    expect(pageViews.total).toBe(emulator.store.views.length);
    expect(pageViews.granularity).toBe('daily');
    expect(pageViews.actualData.values).toEqual([{ key: expect.any(String), total: pageViews.total, items: [] }]);
    expect(pageViews.actualData.data.reduce((sum, point) => sum + point.value, 0)).toBe(pageViews.total);
    expect(results[0].total).toBe(emulator.store.clients.size);
  });

  it('groups rows by the requested dimensions', async () => {
    const { status, body } = await query(dashboardQuery({ groupBy: ['deviceType'] }), `Bearer ${token}`);
    expect(status).toBe(200);
    const rows = body[0].actualData.values;
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row.items).toEqual([{ id: expect.any(String), value: expect.any(String), type: 'deviceType' }]);
    expect(rows.reduce((sum, row) => sum + row.total, 0)).toBe(body[0].total);
  });

  it("passes the engine's 400 through with the offending paths", async () => {
    const { status, body } = await query(dashboardQuery({ metrics: ['notAMetric'] }), `Bearer ${token}`);
    expect(status).toBe(400);
    expect(body.msg).toBe('Invalid params');
    expect(body.errors!.some((e) => e.path.startsWith('metrics'))).toBe(true);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const { status, body } = await query('{"dates":', `Bearer ${token}`);
    expect(status).toBe(400);
    expect(body.errors![0].path).toBe('body');
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic YXBpOnB3'],
    ['a bare "Bearer"', 'Bearer'],
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
    ['a JWT with a broken signature', 'TAMPER'],
  ])('answers 401 for %s', async (_name, header) => {
    const authorization = header === 'TAMPER' ? `Bearer ${token.slice(0, -4)}AAAA` : header;
    const { status, body } = await query(dashboardQuery(), authorization);
    expect(status).toBe(401);
    expect(body).toEqual({ msg: 'Unauthorized' });
  });

  it('answers 401 for a token signed with another secret', async () => {
    const now = Math.floor(emulator.clock.now() / 1000);
    const forged = await new SignJWT({ sitesId: 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('101')
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode('a-secret-the-emulator-does-not-know'));
    const { status, body } = await query(dashboardQuery(), `Bearer ${forged}`);
    expect(status).toBe(401);
    expect(body).toEqual({ msg: 'Unauthorized' });
  });

  it('answers 403 once the user lost the API role, and 200 again when it comes back', async () => {
    const signedIn = await signIn(emulator, 'api@sso.example', 'demo-sso-api-password');
    const user = emulator.store.users.find((u) => u.email === 'api@sso.example')!;
    const roles = user.roles;
    user.roles = roles.filter((r) => r !== 'api');
    try {
      const refused = await query(dashboardQuery(), `Bearer ${signedIn.body.token}`);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ msg: 'API role not enabled for this user' });
    } finally {
      user.roles = roles;
    }
    expect((await query(dashboardQuery(), `Bearer ${signedIn.body.token}`)).status).toBe(200);
  });
});

// Its own emulator: moving the clock would shift every later test's time windows.
describe('token expiry', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ tokenTtlSeconds: 3 * DAY_SECONDS });
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  const query = (authorization: string) =>
    call<ErrorBody>(emulator, '/api/dashboard/query', { body: dashboardQuery(), headers: { authorization } });

  it('answers 401 once the token expired in emulator time', async () => {
    expect((await query(`Bearer ${token}`)).status).toBe(200);
    await call(emulator, '/__emulator/clock', { body: { advanceSeconds: 3 * DAY_SECONDS - 60 } });
    expect((await query(`Bearer ${token}`)).status).toBe(200);
    await call(emulator, '/__emulator/clock', { body: { advanceSeconds: 61 } });
    const { status, body } = await query(`Bearer ${token}`);
    expect(status).toBe(401);
    expect(body).toEqual({ msg: 'Unauthorized' });
  });
});

describe('reporting rate limit', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rates: { reportingPerMinute: 2 } });
  });
  afterAll(() => emulator.close());

  it('answers 429 with Retry-After beyond the per-user budget, refilled by moving the clock', async () => {
    const token = await apiToken(emulator);
    const query = () => call<ErrorBody>(emulator, '/api/dashboard/query', { body: dashboardQuery(), token });
    expect((await query()).status).toBe(200);
    // Experiences spend the same budget.
    expect((await call(emulator, '/api/experiences', { token })).status).toBe(200);
    const limited = await query();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ msg: 'Too many requests' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Each user has a budget of its own.
    const other = await signIn(emulator, 'api@sso.example', 'demo-sso-api-password');
    expect((await call(emulator, '/api/dashboard/query', { body: dashboardQuery(), token: other.body.token })).status).toBe(200);

    await call(emulator, '/__emulator/clock', { body: { advanceSeconds: 60 } });
    expect((await query()).status).toBe(200);
  });
});
