import type { RunningEmulator } from '../../emulator';
import { apiToken, call, dashboardQuery, signIn, startTestEmulator, type ErrorBody } from '../support/emulator';

interface Stats {
  signin: { count: number; distinct: number };
  dashboard: { count: number; distinct: number };
  render: { count: number; distinct: number };
}

interface Fault {
  id: number;
  target: string;
  status: number | null;
  rate: number;
  delayMs: number;
  reset: boolean;
}

describe('/__emulator/stats', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rates: { reportingPerMinute: 2 } });
  });
  afterAll(() => emulator.close());

  const stats = async () => (await call<Stats>(emulator, '/__emulator/stats')).body;

  it('counts requests per endpoint and their distinct parameter sets, rejected ones included', async () => {
    const token = await apiToken(emulator);
    expect((await call(emulator, '/__emulator/stats', { method: 'DELETE' })).status).toBe(204);
    expect(await stats()).toEqual({
      signin: { count: 0, distinct: 0 },
      dashboard: { count: 0, distinct: 0 },
      render: { count: 0, distinct: 0 },
    });

    // Sign-in: distinct by email, case-insensitively.
    await signIn(emulator, 'api@demo.example', 'demo-api-password');
    await signIn(emulator, 'API@demo.example', 'wrong');
    await signIn(emulator, 'reader@demo.example', 'demo-reader-password');

    // Dashboard: distinct by body, whatever the key order; unauthorized and rate-limited requests count.
    const body = dashboardQuery();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(body));
    await call(emulator, '/api/dashboard/query', { body, token });
    await call(emulator, '/api/dashboard/query', { body: reordered, token });
    const limited = await call(emulator, '/api/dashboard/query', { body: dashboardQuery({ limit: 5 }), token });
    expect(limited.status).toBe(429);
    expect((await call(emulator, '/api/dashboard/query', { body })).status).toBe(401);

    // Render: distinct by the (id, canonical_url, domain, client_id) tuple only.
    const { id, domain } = emulator.demo.experiences[0];
    await call(emulator, `/recommenderexperience/render.json?${new URLSearchParams({ id, domain })}`);
    await call(emulator, `/recommenderexperience/render.json?${new URLSearchParams({ domain, id, utm: 'x' })}`);
    await call(emulator, `/recommenderexperience/render.json?${new URLSearchParams({ id, domain, client_id: 'c1' })}`);

    expect(await stats()).toEqual({
      signin: { count: 3, distinct: 2 },
      dashboard: { count: 4, distinct: 2 },
      render: { count: 3, distinct: 2 },
    });
  });
});

describe('/__emulator/faults', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    token = await apiToken(emulator);
  });
  afterEach(async () => {
    await call(emulator, '/__emulator/faults', { method: 'DELETE' });
  });
  afterAll(() => emulator.close());

  const renderPath = () => {
    const { id, domain } = emulator.demo.experiences[0];
    return `/recommenderexperience/render.json?${new URLSearchParams({ id, domain })}`;
  };
  const addFault = (body: unknown) => call<Fault & ErrorBody>(emulator, '/__emulator/faults', { body });

  it('stores a fault (201) that answers its status to the target only, until cleared', async () => {
    const added = await addFault({ target: 'render', status: 503 });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: expect.any(Number), target: 'render', status: 503, rate: 1, delayMs: 0, reset: false });
    expect((await call<Fault[]>(emulator, '/__emulator/faults')).body).toEqual([added.body]);

    const faulted = await call<ErrorBody>(emulator, renderPath());
    expect(faulted.status).toBe(503);
    expect(faulted.body.msg).toEqual(expect.any(String));
    expect((await call(emulator, '/api/dashboard/query', { body: dashboardQuery(), token })).status).toBe(200);

    expect((await call(emulator, '/__emulator/faults', { method: 'DELETE' })).status).toBe(204);
    expect((await call<Fault[]>(emulator, '/__emulator/faults')).body).toEqual([]);
    expect((await call(emulator, renderPath())).status).toBe(200);
  });

  it('faults a request before checking its credentials', async () => {
    await addFault({ target: 'dashboard', status: 502 });
    expect((await call(emulator, '/api/dashboard/query', { body: dashboardQuery() })).status).toBe(502);
    await addFault({ target: 'signin', status: 500 });
    expect((await signIn(emulator, 'api@demo.example', 'demo-api-password')).status).toBe(500);
  });

  it('never hits at rate 0 and always at rate 1', async () => {
    await addFault({ target: 'render', status: 500, rate: 0 });
    for (let i = 0; i < 20; i++) expect((await call(emulator, renderPath())).status).toBe(200);
    await call(emulator, '/__emulator/faults', { method: 'DELETE' });
    await addFault({ target: 'render', status: 500, rate: 1 });
    for (let i = 0; i < 20; i++) expect((await call(emulator, renderPath())).status).toBe(500);
  });

  it('hits a share of the requests in a pattern that repeats for the same seed', async () => {
    const pattern = async () => {
      await call(emulator, '/__emulator/faults', { method: 'DELETE' });
      await addFault({ target: 'render', status: 500, rate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await call(emulator, renderPath())).status);
      return statuses;
    };
    const first = await pattern();
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(5);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(5);
    expect(await pattern()).toEqual(first);
  });

  it('delays requests and then answers them normally', async () => {
    await addFault({ target: 'render', delayMs: 200 });
    const started = performance.now();
    const { status } = await call(emulator, renderPath());
    expect(status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('destroys the connection when reset is true', async () => {
    await addFault({ target: 'render', reset: true, delayMs: 10 });
    await expect(fetch(`${emulator.url}${renderPath()}`)).rejects.toThrow();
    await call(emulator, '/__emulator/faults', { method: 'DELETE' });
    expect((await call(emulator, renderPath())).status).toBe(200);
  });

  it('answers 400 naming each bad field of a fault', async () => {
    const { status, body } = await addFault({ status: 200, rate: 2, delayMs: -1, reset: 'yes', extra: 1 });
    expect(status).toBe(400);
    expect(body.errors!.map((e) => e.path).sort()).toEqual(['delayMs', 'extra', 'rate', 'reset', 'status', 'target']);
    const noEffect = await addFault({ target: 'render' });
    expect(noEffect.status).toBe(400);
  });
});

describe('/__emulator/clock', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(() => emulator.close());

  it('reports emulator time and moves it forward', async () => {
    const before = await call<{ now: string }>(emulator, '/__emulator/clock');
    expect(before.status).toBe(200);
    expect(new Date(before.body.now).toISOString()).toBe(before.body.now);
    expect(Math.abs(Date.parse(before.body.now) - Date.now())).toBeLessThan(5000);

    const moved = await call<{ now: string }>(emulator, '/__emulator/clock', { body: { advanceSeconds: 7200 } });
    expect(moved.status).toBe(200);
    const advancedMs = Date.parse(moved.body.now) - Date.parse(before.body.now);
    expect(advancedMs).toBeGreaterThanOrEqual(7200_000);
    expect(advancedMs).toBeLessThan(7205_000);
    expect(Math.abs(emulator.clock.now() - Date.parse(moved.body.now))).toBeLessThan(5000);
  });

  it.each([[{ advanceSeconds: -1 }], [{ advanceSeconds: '60' }], [{}], [{ advanceSeconds: 1, by: 2 }]])(
    'answers 400 for %j',
    async (body) => {
      const response = await call<ErrorBody>(emulator, '/__emulator/clock', { body });
      expect(response.status).toBe(400);
      expect(response.body.msg).toBe('Invalid params');
    },
  );
});
