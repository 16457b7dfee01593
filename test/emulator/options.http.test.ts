import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DEMO_API_USER, emulatorOptionsFromEnv, startEmulator } from '../../emulator';
import { call, signIn, startTestEmulator } from '../support/emulator';

describe('emulatorOptionsFromEnv', () => {
  it('reads every EMULATOR_* variable', () => {
    expect(
      emulatorOptionsFromEnv({
        EMULATOR_PORT: '4011',
        EMULATOR_HOST: '0.0.0.0',
        EMULATOR_SEED: '7',
        EMULATOR_SCALE: '0.5',
        EMULATOR_TOKEN_TTL_SECONDS: '60',
        EMULATOR_REPORTING_RATE_PER_MINUTE: '10',
        EMULATOR_SIGNIN_RATE_PER_MINUTE: '2',
        EMULATOR_RENDER_RATE_PER_MINUTE: '300',
      }),
    ).toEqual({
      port: 4011,
      host: '0.0.0.0',
      seed: 7,
      scale: 0.5,
      tokenTtlSeconds: 60,
      rates: { reportingPerMinute: 10, signinPerMinute: 2, renderPerMinute: 300 },
    });
  });

  it('leaves unset and empty variables to the defaults', () => {
    expect(emulatorOptionsFromEnv({ EMULATOR_SEED: '' })).toEqual({});
  });

  it.each([
    ['EMULATOR_PORT', '70000'],
    ['EMULATOR_PORT', 'http'],
    ['EMULATOR_SEED', '-1'],
    ['EMULATOR_SCALE', '0'],
    ['EMULATOR_SCALE', 'big'],
    ['EMULATOR_TOKEN_TTL_SECONDS', '1.5'],
    ['EMULATOR_REPORTING_RATE_PER_MINUTE', '0'],
    ['EMULATOR_SIGNIN_RATE_PER_MINUTE', '1e3'],
    ['EMULATOR_RENDER_RATE_PER_MINUTE', 'many'],
  ])('names %s when it is %j', (name, value) => {
    expect(() => emulatorOptionsFromEnv({ [name]: value })).toThrow(name);
  });

  it('lists every unusable variable in one error', () => {
    expect(() => emulatorOptionsFromEnv({ EMULATOR_PORT: 'http', EMULATOR_SEED: '-1', EMULATOR_HOST: 'localhost' })).toThrow(
      'EMULATOR_PORT must be an integer from 0 to 65535 (got "http"); EMULATOR_SEED must be an integer from 0 to 4294967295 (got "-1")',
    );
  });
});

describe('startEmulator', () => {
  it('refuses unusable options, naming them', async () => {
    await expect(startEmulator({ scale: -1 })).rejects.toThrow('scale');
    await expect(startEmulator({ rates: { renderPerMinute: 0 } })).rejects.toThrow('rates.renderPerMinute');
    await expect(startEmulator({ tokenTtlSeconds: 0 })).rejects.toThrow('tokenTtlSeconds');
  });

  it('describes itself: url without trailing slash, demo users and seeded experiences', async () => {
    const emulator = await startTestEmulator();
    try {
      expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
      expect(emulator.demo.users.map((u) => u.email)).toEqual(
        expect.arrayContaining([DEMO_API_USER.email, 'reader@demo.example', 'admin@sso.example', 'api@sso.example', 'nopass@sso.example']),
      );
      const apiUser = emulator.demo.users.find((u) => u.email === DEMO_API_USER.email)!;
      expect(apiUser.password).toBe(DEMO_API_USER.password);
      expect((await signIn(emulator, apiUser.email, apiUser.password)).status).toBe(200);
      expect(emulator.demo.experiences.map((e) => e.id).sort()).toEqual([...emulator.store.experiences.keys()].sort());
      // Stored users keep only scrypt hashes.
      for (const user of emulator.store.users) {
        for (const hash of [user.passwordHash, user.apiPasswordHash]) {
          if (hash !== null) expect(hash).toMatch(/^scrypt\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
        }
      }
    } finally {
      await emulator.close();
    }
  });

  it('serves two emulators side by side, each with its own tokens', async () => {
    const [a, b] = await Promise.all([startTestEmulator(), startTestEmulator()]);
    try {
      const token = (await signIn(a, DEMO_API_USER.email, DEMO_API_USER.password)).body.token;
      expect((await call(a, '/api/experiences', { token })).status).toBe(200);
      expect((await call(b, '/api/experiences', { token })).status).toBe(401);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('emulator/main.ts', () => {
  it('prints its URL, the demo credentials and experiences, serves, and exits 0 on SIGTERM', async () => {
    const root = join(__dirname, '..', '..');
    const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'emulator', 'main.ts')], {
      env: { ...process.env, EMULATOR_PORT: '0', EMULATOR_SCALE: '0.01' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const started = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match && output.includes('Seeded experiences:') && /IL_\S+ +balanced/.test(output)) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`emulator exited early with ${code}: ${output}`)));
    });
    const url = await started;
    expect(output).toContain(`${DEMO_API_USER.email} / ${DEMO_API_USER.password}`);
    expect(output).toMatch(/started in \d+ ms/);
    const response = await fetch(`${url}/__emulator/clock`);
    expect(response.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
