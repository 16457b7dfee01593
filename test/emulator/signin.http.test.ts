import { decodeJwt } from 'jose';
import type { RunningEmulator } from '../../emulator';
import { call, signIn, startTestEmulator, type ErrorBody } from '../support/emulator';

describe('POST /api/user/signin', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ tokenTtlSeconds: 3600 });
  });
  afterAll(() => emulator.close());

  it('signs the demo API user in with every field of the contract', async () => {
    const { status, body } = await signIn(emulator, 'api@demo.example', 'demo-api-password');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      [
        'id',
        'name',
        'surname',
        'email',
        'registered',
        'langIso',
        'timezoneId',
        'dataRules',
        'sitesId',
        'updatedAt',
        'Timezone',
        'Site',
        'token',
        'role',
      ].sort(),
    );
    expect(body).toMatchObject({
      id: expect.any(Number),
      name: expect.any(String),
      surname: expect.any(String),
      email: 'api@demo.example',
      langIso: null,
      timezoneId: null,
      dataRules: null,
      Timezone: null,
      role: 'api',
    });
    expect(new Date(body.registered).toISOString()).toBe(body.registered);
    expect(new Date(body.updatedAt).toISOString()).toBe(body.updatedAt);
    expect(body.Site).toEqual({ id: body.sitesId, name: expect.any(String), domain: expect.any(String) });
  });

  it('issues an HS256 JWT with sub, iat, exp (the configured TTL, in emulator time) and sitesId', async () => {
    const { body } = await signIn(emulator, 'api@demo.example', 'demo-api-password');
    const claims = decodeJwt(body.token);
    expect(claims.sub).toBe(String(body.id));
    expect(claims.sitesId).toBe(body.sitesId);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(Math.abs(claims.iat! * 1000 - emulator.clock.now())).toBeLessThan(5000);
  });

  it('matches the email case-insensitively', async () => {
    const { status, body } = await signIn(emulator, 'API@Demo.Example', 'demo-api-password');
    expect(status).toBe(200);
    expect(body.email).toBe('api@demo.example');
  });

  it('signs an SSO organization API user in with the API password', async () => {
    const { status, body } = await signIn(emulator, 'api@sso.example', 'demo-sso-api-password');
    expect(status).toBe(200);
    expect(body.role).toBe('api');
  });

  it('answers 401 with the same body for an unknown email and a wrong password', async () => {
    const unknown = await signIn(emulator, 'nobody@demo.example', 'demo-api-password');
    const wrong = await signIn(emulator, 'api@demo.example', 'not-the-password');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual({ msg: 'Invalid credentials' });
    expect(wrong.body).toEqual(unknown.body);
  });

  it('checks the password before saying anything about the account', async () => {
    const { status, body } = await signIn(emulator, 'reader@demo.example', 'wrong');
    expect(status).toBe(401);
    expect(body).toEqual({ msg: 'Invalid credentials' });
  });

  it.each([
    ['reader@demo.example', 'demo-reader-password', 'API role not enabled for this user'],
    ['admin@sso.example', 'demo-admin-password', 'Admin users cannot use the API when SSO is enforced'],
    ['nopass@sso.example', 'whatever-it-is', 'Set an API password with the forgot-password option'],
  ])('refuses %s with 403', async (email, password, msg) => {
    const { status, body } = await signIn(emulator, email, password);
    expect(status).toBe(403);
    expect(body).toEqual({ msg });
  });

  it('answers 400 naming each missing or non-string field', async () => {
    const missing = await call<ErrorBody>(emulator, '/api/user/signin', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toBe('Invalid params');
    expect(missing.body.errors!.map((e) => e.path).sort()).toEqual(['email', 'password']);

    const wrongTypes = await call<ErrorBody>(emulator, '/api/user/signin', { body: { email: 42, password: ['x'] } });
    expect(wrongTypes.status).toBe(400);
    expect(wrongTypes.body.errors!.map((e) => e.path).sort()).toEqual(['email', 'password']);
  });

  it.each([
    ['not JSON', 'email=api@demo.example&password=x'],
    ['an empty body', ''],
    ['a JSON array', '[]'],
  ])('answers 400 for %s', async (_name, raw) => {
    const { status, body } = await call<ErrorBody>(emulator, '/api/user/signin', { method: 'POST', body: raw });
    expect(status).toBe(400);
    expect(body.msg).toBe('Invalid params');
    expect(body.errors![0].path).toBe('body');
  });

  it('never echoes the password of an unparsable body', async () => {
    const secret = 'hunter2-very-secret';
    const { status, body } = await call<ErrorBody>(emulator, '/api/user/signin', {
      method: 'POST',
      body: `{"email":"api@demo.example","password":"${secret}"`,
    });
    expect(status).toBe(400);
    expect(JSON.stringify(body)).not.toContain(secret);
  });
});

describe('sign-in rate limit', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rates: { signinPerMinute: 3 } });
  });
  afterAll(() => emulator.close());

  it('answers 429 with a numeric Retry-After beyond the per-email budget, in emulator time', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await signIn(emulator, 'api@demo.example', 'wrong')).status).toBe(401);
    }
    // The budget is per email, case-insensitively.
    const limited = await signIn(emulator, 'API@demo.example', 'demo-api-password');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ msg: 'Too many requests' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // Another email has its own budget.
    expect((await signIn(emulator, 'api@sso.example', 'demo-sso-api-password')).status).toBe(200);

    await call(emulator, '/__emulator/clock', { body: { advanceSeconds: 60 } });
    expect((await signIn(emulator, 'api@demo.example', 'demo-api-password')).status).toBe(200);
  });
});
