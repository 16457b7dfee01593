/**
 * `npm run doctor` says whether CALLER_AUTH is set for a production target:
 * missing, it fails the configuration check naming the variable and sends
 * nothing; set, the check names the proofs callers must carry.
 */
import type { RunningEmulator } from '../../emulator';
import { startTestEmulator } from '../support/emulator';
import { emulatorCounts, remoteEnv, resetEmulatorCounts, runDoctorForTest } from '../support/doctorRun';

const API_USER = { email: 'api@demo.example', password: 'demo-api-password' };

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => resetEmulatorCounts(emulator));

test('a production target without CALLER_AUTH fails the configuration check, naming it, and sends nothing', async () => {
  const run = await runDoctorForTest({
    env: remoteEnv(emulator.url, API_USER.email, API_USER.password, { NODE_ENV: 'production' }),
    spend: false,
  });
  expect(run.line('configuration')).toMatch(/^FAIL {2}configuration: CALLER_AUTH is required in production against the real hosts/);
  expect(run.report.exitCode).toBe(1);
  expect(await emulatorCounts(emulator)).toEqual({ signin: 0, dashboard: 0, render: 0 });
});

test('a production target with CALLER_AUTH names the proofs callers must carry', async () => {
  const env = remoteEnv(emulator.url, API_USER.email, API_USER.password, {
    NODE_ENV: 'production',
    CALLER_AUTH: 'router-secret,jwt',
    ROUTER_SECRET: 'doctor-router-secret',
    JWT_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
  });
  const run = await runDoctorForTest({ env, spend: false });
  expect(run.line('configuration')).toMatch(
    /^pass {2}configuration: valid; .*callers must prove router-secret \+ jwt \(CALLER_AUTH\); JWT keys from https:\/\/idp\.example/,
  );
  expect(run.lines.join('\n')).not.toContain('doctor-router-secret');
});

test('CALLER_AUTH=none in production is said plainly', async () => {
  const env = remoteEnv(emulator.url, API_USER.email, API_USER.password, { NODE_ENV: 'production', CALLER_AUTH: 'none' });
  const run = await runDoctorForTest({ env, spend: false });
  expect(run.line('configuration')).toContain('CALLER_AUTH=none: any caller that reaches the port reads the whole account');
});
