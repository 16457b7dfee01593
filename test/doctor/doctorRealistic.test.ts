// Needs the vendor branch (EMULATOR_PROFILE / the `profile` option): after merging it, rename this file to doctorRealistic.test.ts.
// Checked to pass on a trial merge of doctor + vendor (21/21 doctor tests).
/** `npm run doctor` against the emulator's realistic profile (contract §5): 30-minute tokens, one dashboard query a minute. */
import type { RunningEmulator } from '../../emulator';
import { startTestEmulator } from '../support/emulator';
import { emulatorCounts, remoteEnv, runDoctorForTest } from '../support/doctorRun';

describe('npm run doctor against the realistic profile', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile: 'realistic' });
  });
  afterAll(() => emulator.close());

  it('passes once with a 30-minute token; a second run within the minute is told to wait for the budget', async () => {
    const env = remoteEnv(emulator.url, 'api@demo.example', 'demo-api-password');
    const experienceId = emulator.demo.experiences[0]!.id;

    const first = await runDoctorForTest({ env, experienceId });
    expect(first.line('sign-in')).toMatch(/^pass {2}sign-in: api@demo\.example signed in \(role api\); token valid for 30 min/);
    expect(first.line('dashboard query')).toMatch(/^pass {2}dashboard query: 200, pageViewsTotal over the last day: \d+$/);
    expect(first.report.exitCode).toBe(0);

    const second = await runDoctorForTest({ env, experienceId });
    expect(second.line('dashboard query')).toMatch(
      /^FAIL {2}dashboard query: rate limited: 429 Too many requests \(Retry-After (\d+) s\) → the account's query budget is spent .*wait \1 s, or run with --no-spend$/,
    );
    expect(second.report.exitCode).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 2, dashboard: 2, render: 2 });
  });
});
