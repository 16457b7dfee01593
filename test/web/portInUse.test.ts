/**
 * A port already in use, as `npm start` meets it: one clear line naming the
 * port and the variable, a non-zero exit, no stack trace, and (embedded
 * mode) before the emulator spends seconds starting.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** The environment without anything that would select a remote upstream (so the embedded emulator would start). */
function embeddedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['REPORTING_BASE_URL', 'RECOMMENDER_URL', 'REPORTING_EMAIL', 'REPORTING_PASSWORD', 'NODE_ENV', 'PORT', 'METRICS_PORT'])
    delete env[name];
  return { ...env, ...extra };
}

function run(env: Record<string, string>, entry = 'src/index.ts'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    env: embeddedEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

let holder: Server;
let takenPort: number;

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, resolve));
  takenPort = (holder.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

describe('a port already in use', () => {
  it.each([
    { variable: 'PORT', env: (port: number) => ({ PORT: String(port) }) },
    { variable: 'METRICS_PORT', env: (port: number) => ({ PORT: '0', METRICS_PORT: String(port) }) },
  ])('($variable) is one line naming the port and the variable, exit 1, before the emulator starts', async ({ variable, env }) => {
    const { code, stdout, stderr } = await run(env(takenPort));
    expect(code).toBe(1);
    expect(stderr).toBe(
      `subgraph failed to start: port ${takenPort} is already in use (${variable}); stop what holds it or set ${variable} to a free port\n`,
    );
    // The embedded emulator logs once it has started: it never did.
    expect(stdout).not.toContain('embedded emulator');
  });

  it('(EMULATOR_PORT, npm run emulator) is one line naming the port and the variable, exit 1, before the demo data is built', async () => {
    const { code, stdout, stderr } = await run({ EMULATOR_PORT: String(takenPort) }, 'emulator/main.ts');
    expect(code).toBe(1);
    expect(stderr).toBe(
      `emulator: port ${takenPort} is already in use (EMULATOR_PORT); stop what holds it or set EMULATOR_PORT to a free port\n`,
    );
    expect(stdout).not.toContain('Emulator listening');
  });
});
