import { decodeJwt } from 'jose';
import { emulatorOptionsFromEnv, startEmulator, type RunningEmulator } from '../../emulator';
import { readEmulatorEnv } from '../../emulator/config';
import { Delays } from '../../emulator/control/delays';
import { FaultInjector } from '../../emulator/control/faults';
import { instrument } from '../../emulator/control/instrument';
import { Latency } from '../../emulator/control/latency';
import { RequestStats } from '../../emulator/control/stats';
import { json } from '../../emulator/http/reply';
import type { EmulatorRequest } from '../../emulator/http/request';
import { PROFILES } from '../../emulator/profiles';
import { loadConfig } from '../../src/config';
import { apiToken, call, dashboardQuery, type ErrorBody } from '../support/emulator';

/** The emulator as `npm run emulator` would start it from these variables (small data, free port). */
function startFromEnv(env: Record<string, string>): Promise<RunningEmulator> {
  return startEmulator(emulatorOptionsFromEnv({ EMULATOR_PORT: '0', EMULATOR_SCALE: '0.05', ...env }));
}

/** Raw, because an empty 200 body is not JSON and the support helper insists on JSON. */
async function postDashboard(emulator: RunningEmulator, token: string, body: unknown) {
  const response = await fetch(`${emulator.url}/api/dashboard/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const advance = (emulator: RunningEmulator, seconds: number) =>
  call(emulator, '/__emulator/clock', { body: { advanceSeconds: seconds } }).then((r) => expect(r.status).toBe(200));

async function tokenLifetimeSeconds(emulator: RunningEmulator): Promise<number> {
  const { iat, exp } = decodeJwt(await apiToken(emulator));
  return (exp ?? 0) - (iat ?? 0);
}

/** Grouped finely enough that the small demo data has well over 500 groups. */
const MANY_GROUPS = dashboardQuery({ groupBy: ['url', 'source', 'deviceType'], limit: 1000 });

describe('EMULATOR_PROFILE=realistic (contract §5)', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startFromEnv({ EMULATOR_PROFILE: 'realistic' });
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());
  // Every test starts with a full one-query budget.
  beforeEach(() => advance(emulator, 60));

  it('reports its settings', () => {
    expect(emulator.settings).toEqual({
      profile: 'realistic',
      tokenTtlSeconds: 1800,
      rates: { reportingPerMinute: 1, signinPerMinute: 20, renderPerMinute: 6000 },
      maxRowsPerPage: 500,
    });
  });

  it('issues 30-minute tokens', async () => {
    expect(await tokenLifetimeSeconds(emulator)).toBe(30 * 60);
  });

  it('allows one dashboard query per minute per user, then 429 with the seconds until the next one', async () => {
    expect((await postDashboard(emulator, token, dashboardQuery())).status).toBe(200);
    const refused = await postDashboard(emulator, token, dashboardQuery());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(JSON.parse(refused.text)).toEqual({ msg: 'Too many requests' });
    // The experiences API spends the same budget.
    expect((await call<ErrorBody>(emulator, '/api/experiences', { token })).status).toBe(429);
    await advance(emulator, 30);
    expect((await postDashboard(emulator, token, dashboardQuery())).headers.get('retry-after')).toBe('30');
    await advance(emulator, 30);
    expect((await postDashboard(emulator, token, dashboardQuery())).status).toBe(200);
  });

  it('returns at most 500 rows per page whatever the limit', async () => {
    const response = await postDashboard(emulator, token, MANY_GROUPS);
    expect(response.status).toBe(200);
    const [result] = JSON.parse(response.text) as { actualData: { values: unknown[] } }[];
    expect(result.actualData.values).toHaveLength(500);
  });

  it.each(['revenueTotal', 'adsImpressions', 'CPM', 'RPM', 'adsPerPage'])(
    'answers %s, outside the plan, with 200 and an empty body',
    async (metric) => {
      const response = await postDashboard(emulator, token, dashboardQuery({ metrics: ['pageViewsTotal', metric] }));
      expect(response.status).toBe(200);
      expect(response.text).toBe('');
    },
  );

  it('still answers 400 for an invalid query naming an unplanned metric', async () => {
    const response = await postDashboard(
      emulator,
      token,
      dashboardQuery({ metrics: ['CPM'], order: { metric: 'pageViewsTotal', sort: 'DESC' } }),
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toEqual({ msg: 'Invalid params', errors: [expect.objectContaining({ path: 'order.metric' })] });
  });
});

describe('the default profile', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startFromEnv({});
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  it('is unchanged: 600 queries a minute, 14-day tokens, up to 1000 rows, every metric', async () => {
    expect(emulator.settings).toEqual({
      profile: 'default',
      tokenTtlSeconds: 14 * 86_400,
      rates: { reportingPerMinute: 600, signinPerMinute: 20, renderPerMinute: 6000 },
      maxRowsPerPage: 1000,
    });
    expect(await tokenLifetimeSeconds(emulator)).toBe(14 * 86_400);
    const rows = await postDashboard(emulator, token, MANY_GROUPS);
    expect((JSON.parse(rows.text) as { actualData: { values: unknown[] } }[])[0].actualData.values.length).toBeGreaterThan(500);
    const revenue = await postDashboard(
      emulator,
      token,
      dashboardQuery({ metrics: ['revenueTotal'], order: { metric: 'revenueTotal', sort: 'DESC' } }),
    );
    expect(revenue.status).toBe(200);
    expect(JSON.parse(revenue.text)).toEqual([expect.objectContaining({ metric: 'revenueTotal', total: expect.any(Number) })]);
  });
});

describe('an EMULATOR_* variable set explicitly wins over the profile', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startFromEnv({
      EMULATOR_PROFILE: 'realistic',
      EMULATOR_REPORTING_RATE_PER_MINUTE: '3',
      EMULATOR_TOKEN_TTL_SECONDS: '120',
    });
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  it('keeps the explicit budget and token lifetime, and the profile for the rest', async () => {
    expect(emulator.settings).toEqual({
      profile: 'realistic',
      tokenTtlSeconds: 120,
      rates: { reportingPerMinute: 3, signinPerMinute: 20, renderPerMinute: 6000 },
      maxRowsPerPage: 500,
    });
    expect(await tokenLifetimeSeconds(emulator)).toBe(120);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await postDashboard(emulator, token, dashboardQuery())).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('EMULATOR_PROFILE parsing', () => {
  it('names the variable and the profiles when the value is unknown', () => {
    expect(() => emulatorOptionsFromEnv({ EMULATOR_PROFILE: 'live' })).toThrow(
      'EMULATOR_PROFILE must be one of default, realistic (got "live")',
    );
  });

  it('spells out the profile budgets for readers of rates alone (the embedded subgraph governor), explicit ones winning', () => {
    expect(readEmulatorEnv({ EMULATOR_PROFILE: 'realistic', EMULATOR_SIGNIN_RATE_PER_MINUTE: '5' }).options).toEqual({
      profile: 'realistic',
      rates: { reportingPerMinute: 1, signinPerMinute: 5, renderPerMinute: 6000 },
    });
  });

  it('sets the embedded emulator and the subgraph governor of `EMULATOR_PROFILE=realistic npm start` alike', () => {
    const config = loadConfig({ EMULATOR_PROFILE: 'realistic' });
    expect(config.upstream).toEqual({ mode: 'embedded', emulator: expect.objectContaining({ profile: 'realistic' }) });
    expect(config.governor).toMatchObject({ reportingPerMinute: 1, signinPerMinute: 20, renderPerMinute: 6000 });
  });

  it('refuses an unknown profile given in code', async () => {
    await expect(startEmulator({ profile: 'live' as never })).rejects.toThrow('profile');
  });
});

describe('the realistic latency', () => {
  const ranges = PROFILES.realistic.latency!;

  it('is drawn within each endpoint range, the same for the same seed', () => {
    const draw = (seed: number) => {
      const latency = new Latency(seed, ranges);
      return (['dashboard', 'render', 'signin'] as const).flatMap((target) =>
        Array.from({ length: 50 }, () => [target, latency.next(target)] as const),
      );
    };
    const first = draw(7);
    expect(draw(7)).toEqual(first);
    expect(draw(8)).not.toEqual(first);
    for (const [target, ms] of first) {
      expect(ms).toBeGreaterThanOrEqual(ranges[target].minMs);
      expect(ms).toBeLessThanOrEqual(ranges[target].maxMs);
    }
  });

  it('is none in the default profile', () => {
    expect(new Latency(7, PROFILES.default.latency).next('dashboard')).toBe(0);
  });

  it('is waited before each request is handled', async () => {
    const delays = new Delays();
    const waited: number[] = [];
    jest.spyOn(delays, 'wait').mockImplementation(async (ms) => {
      waited.push(ms);
    });
    const latency = new Latency(7, ranges);
    const expected = new Latency(7, ranges);
    const handler = instrument(
      'render',
      () => '',
      { stats: new RequestStats(), faults: new FaultInjector(7), delays, latency },
      () => json(200, { waitedBefore: waited.length }),
    );
    const reply = await handler({} as EmulatorRequest);
    expect(reply).toEqual({ status: 200, body: { waitedBefore: 1 } });
    expect(waited).toEqual([expected.next('render')]);
  });
});
