import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DEMO_API_USER, emulatorOptionsFromEnv, startEmulator } from '../../emulator';
import { loadConfig } from '../../src/config';
import { call, signIn, startTestEmulator } from '../support/emulator';

describe('emulatorOptionsFromEnv', () => {
  it('reads every EMULATOR_* variable', () => {
    expect(
      emulatorOptionsFromEnv({
        EMULATOR_PORT: '4011',
        EMULATOR_HOST: '0.0.0.0',
        EMULATOR_PROFILE: 'realistic',
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
      profile: 'realistic',
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
    ['EMULATOR_PROFILE', 'Realistic'],
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

/** `npm run emulator` (emulator/main.ts through tsx), on a free port with small data; resolves once it has printed everything. */
async function startMain(env: Record<string, string> = {}) {
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'emulator', 'main.ts')], {
    env: { ...process.env, EMULATOR_PORT: '0', EMULATOR_SCALE: '0.01', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('# --- end of subgraph settings ---')) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited early with ${code}: ${output}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    return code as number | null;
  };
  return { url, output, stop };
}

/** The `NAME=value` lines between the settings block's markers. */
function settingsBlock(output: string): Record<string, string> {
  const block = /# --- subgraph settings for this emulator[^\n]*\n([\s\S]*?)# --- end of subgraph settings ---/.exec(output);
  if (!block) throw new Error(`no settings block in: ${output}`);
  return Object.fromEntries(
    block[1]
      .trim()
      .split('\n')
      .map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)];
      }),
  );
}

describe('emulator/main.ts', () => {
  it('prints its URL, the demo credentials and experiences, serves, and exits 0 on SIGTERM', async () => {
    const main = await startMain();
    expect(main.output).toContain(`${DEMO_API_USER.email} / ${DEMO_API_USER.password}`);
    expect(main.output).toMatch(/started in \d+ ms/);
    expect(main.output).toMatch(/IL_\S+ +balanced/);
    const response = await fetch(`${main.url}/__emulator/clock`);
    expect(response.status).toBe(200);
    expect(await main.stop()).toBe(0);
  });

  it('prints a ready-to-paste block of the subgraph settings matching the default profile', async () => {
    const main = await startMain();
    try {
      expect(settingsBlock(main.output)).toEqual({
        REPORTING_BASE_URL: main.url,
        RECOMMENDER_URL: main.url,
        REPORTING_EMAIL: DEMO_API_USER.email,
        REPORTING_PASSWORD: DEMO_API_USER.password,
        REPORTING_RATE_PER_MINUTE: '600',
        SIGNIN_RATE_PER_MINUTE: '20',
        RENDER_RATE_PER_MINUTE: '6000',
      });
    } finally {
      await main.stop();
    }
  });

  it('prints the realistic profile budgets with explicit variables applied, as settings the subgraph accepts and that sign in', async () => {
    const main = await startMain({ EMULATOR_PROFILE: 'realistic', EMULATOR_SIGNIN_RATE_PER_MINUTE: '7' });
    try {
      expect(main.output).toContain('Profile: realistic');
      const settings = settingsBlock(main.output);
      expect(settings).toMatchObject({ REPORTING_RATE_PER_MINUTE: '1', SIGNIN_RATE_PER_MINUTE: '7', RENDER_RATE_PER_MINUTE: '6000' });
      // The names are the subgraph's own: its configuration reads them back.
      const config = loadConfig(settings);
      expect(config.upstream).toMatchObject({
        mode: 'remote',
        reportingBaseUrl: main.url,
        recommenderUrl: main.url,
        email: DEMO_API_USER.email,
      });
      expect(config.governor).toMatchObject({ reportingPerMinute: 1, signinPerMinute: 7, renderPerMinute: 6000 });
      const signIn = await fetch(`${settings.REPORTING_BASE_URL}/api/user/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: settings.REPORTING_EMAIL, password: settings.REPORTING_PASSWORD }),
      });
      expect(signIn.status).toBe(200);
    } finally {
      await main.stop();
    }
  });
});
