/**
 * `npm run doctor`'s checks over real HTTP against the emulator, one test per
 * failure a user can meet, with the requests the emulator received counted.
 */
import type { RunningEmulator } from '../../emulator';
import { signIn, startTestEmulator } from '../support/emulator';
import { closedPort, emulatorCounts, remoteEnv, resetEmulatorCounts, runDoctorForTest } from '../support/doctorRun';

const API_USER = { email: 'api@demo.example', password: 'demo-api-password' };
const CHECKS = [
  'configuration',
  'reporting host (REPORTING_BASE_URL)',
  'recommender host (RECOMMENDER_URL)',
  'sign-in',
  'dashboard query',
  'render.json',
];

describe('npm run doctor against the emulator', () => {
  let emulator: RunningEmulator;
  let experienceId: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    experienceId = emulator.demo.experiences[0]!.id;
  });
  afterAll(() => emulator.close());
  beforeEach(() => resetEmulatorCounts(emulator));

  it('passes every check with one sign-in, one dashboard query and one render.json, saying so before the query', async () => {
    const run = await runDoctorForTest({ env: remoteEnv(emulator.url, API_USER.email, API_USER.password), experienceId });

    expect(run.statuses).toEqual(CHECKS.map((check) => `${check}: pass`));
    expect(run.report.exitCode).toBe(0);
    expect(run.line('sign-in')).toMatch(/^pass {2}sign-in: api@demo\.example signed in \(role api\); token valid for 14 days/);
    expect(run.line('reporting host')).toContain(`${emulator.url}: DNS ok (127.0.0.1), TCP ok (port ${emulator.port}), no TLS (http)`);
    const note = run.lines.findIndex((line) => line.startsWith('note  dashboard query:') && line.includes('spends 1 slot'));
    expect(note).toBeGreaterThan(run.lines.indexOf(run.line('sign-in')));
    expect(note).toBeLessThan(run.lines.indexOf(run.line('dashboard query')));
    expect(run.line('render.json')).toMatch(
      new RegExp(`^pass {2}render\\.json: experience ${experienceId} on dailyglobe\\.example: 200, \\d+ recommendations`),
    );
    expect(run.lines.at(-1)).toBe('doctor: 6 passed, 0 failed, 0 skipped');
    expect(await emulatorCounts(emulator)).toEqual({ signin: 1, dashboard: 1, render: 1 });
  });

  it('with --no-spend sends no dashboard query and still exits 0', async () => {
    const run = await runDoctorForTest({ env: remoteEnv(emulator.url, API_USER.email, API_USER.password), spend: false });

    expect(run.line('dashboard query')).toBe('skip  dashboard query: skipped (--no-spend)');
    expect(run.lines.some((line) => line.startsWith('note  dashboard query'))).toBe(false);
    expect(run.line('render.json')).toContain('set DOCTOR_EXPERIENCE_ID');
    expect(run.report.exitCode).toBe(0);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 1, dashboard: 0, render: 0 });
  });

  it.each([
    [
      'a wrong password',
      API_USER.email,
      'not-the-password',
      /wrong email or password: 401 Invalid credentials → check REPORTING_EMAIL and REPORTING_PASSWORD/,
    ],
    [
      'a user without the API role',
      'reader@demo.example',
      'demo-reader-password',
      /reader@demo\.example lacks the API role: 403 .* → ask an administrator/,
    ],
    [
      'an admin of an SSO organization',
      'admin@sso.example',
      'demo-admin-password',
      /admin users cannot use the API when the organization enforces single sign-on: 403/,
    ],
    [
      'an SSO user without an API password',
      'nopass@sso.example',
      'any-password',
      /has no API password: 403 .* → set an API password with the forgot-password option/,
    ],
  ])('names the cause of a refused sign-in: %s', async (_case, email, password, expected) => {
    // The domain is given: render.json needs one, and without a sign-in the doctor knows no site.
    const run = await runDoctorForTest({
      env: remoteEnv(emulator.url, email, password),
      experienceId,
      experienceDomain: 'dailyglobe.example',
    });

    expect(run.line('sign-in')).toMatch(/^FAIL {2}sign-in: /);
    expect(run.line('sign-in')).toMatch(expected);
    expect(run.line('dashboard query')).toBe('skip  dashboard query: skipped: no signed-in token');
    // render.json needs no credential, so it is still checked.
    expect(run.line('render.json')).toMatch(/^pass/);
    expect(run.report.exitCode).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 1, dashboard: 0, render: 1 });
  });

  it('fails a reporting host on a closed port at TCP and skips what needs it', async () => {
    const port = await closedPort();
    const env = { ...remoteEnv(emulator.url, API_USER.email, API_USER.password), REPORTING_BASE_URL: `http://127.0.0.1:${port}` };
    const run = await runDoctorForTest({ env, experienceId });

    expect(run.line('reporting host')).toMatch(
      new RegExp(
        `^FAIL {2}reporting host \\(REPORTING_BASE_URL\\): http://127\\.0\\.0\\.1:${port}: DNS ok \\(127\\.0\\.0\\.1\\), TCP to 127\\.0\\.0\\.1:${port} failed \\(.*ECONNREFUSED.*\\) → check the port in REPORTING_BASE_URL`,
      ),
    );
    expect(run.line('recommender host')).toMatch(/^pass/);
    expect(run.line('sign-in')).toBe('skip  sign-in: skipped: the reporting host is unreachable');
    expect(run.line('dashboard query')).toBe('skip  dashboard query: skipped: no signed-in token');
    expect(run.line('render.json')).toMatch(
      /^skip {2}render\.json: skipped: render\.json needs the site's domain and no sign-in named one; set DOCTOR_EXPERIENCE_DOMAIN$/,
    );
    expect(run.report.exitCode).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 0, dashboard: 0, render: 0 });
  });

  it('fails a host name that does not resolve at DNS', async () => {
    const env = { ...remoteEnv(emulator.url, API_USER.email, API_USER.password), RECOMMENDER_URL: 'https://doctor-test.invalid' };
    const run = await runDoctorForTest({ env, experienceId });

    expect(run.line('recommender host')).toMatch(
      /^FAIL {2}recommender host \(RECOMMENDER_URL\): https:\/\/doctor-test\.invalid: DNS failed, doctor-test\.invalid does not resolve \(.+\) → check the host name in RECOMMENDER_URL/,
    );
    expect(run.line('reporting host')).toMatch(/^pass/);
    expect(run.line('render.json')).toBe('skip  render.json: skipped: the recommender host is unreachable');
    expect(run.report.exitCode).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 1, dashboard: 1, render: 0 });
  });

  it('fails https to a host that does not speak TLS at TLS', async () => {
    const env = { ...remoteEnv(emulator.url, API_USER.email, API_USER.password), RECOMMENDER_URL: `https://127.0.0.1:${emulator.port}` };
    const run = await runDoctorForTest({ env, experienceId, spend: false });

    expect(run.line('recommender host')).toMatch(
      new RegExp(
        `^FAIL {2}recommender host \\(RECOMMENDER_URL\\): .*TCP ok \\(port ${emulator.port}\\), TLS failed \\(.+\\) → check the host's certificate`,
      ),
    );
    expect(run.line('recommender host')).toContain('TLS failed (ERR_SSL_WRONG_VERSION_NUMBER: wrong version number)');
    expect(run.report.exitCode).toBe(1);
  });

  it('names every misconfigured variable, skips the other checks and sends nothing', async () => {
    const run = await runDoctorForTest({ env: { REPORTING_BASE_URL: emulator.url, UPSTREAM_TIMEOUT_MS: 'soon' }, experienceId });

    expect(run.line('configuration')).toMatch(/^FAIL {2}configuration: .*RECOMMENDER_URL, REPORTING_EMAIL, REPORTING_PASSWORD are missing/);
    expect(run.line('configuration')).toContain('UPSTREAM_TIMEOUT_MS');
    expect(run.statuses).toEqual(CHECKS.map((check, index) => `${check.replace(/ \(.*\)$/, '')}: ${index === 0 ? 'fail' : 'skip'}`));
    expect(run.lines.slice(1, 6).every((line) => line.endsWith('skipped: the configuration is invalid'))).toBe(true);
    expect(run.report.exitCode).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 0, dashboard: 0, render: 0 });
  });

  it('fails render.json for an experience that does not exist, naming DOCTOR_EXPERIENCE_ID', async () => {
    const run = await runDoctorForTest({
      env: remoteEnv(emulator.url, API_USER.email, API_USER.password),
      experienceId: 'IL_doesNotExist',
      spend: false,
    });

    expect(run.line('render.json')).toMatch(
      /^FAIL {2}render\.json: experience IL_doesNotExist on dailyglobe\.example: not found: 404 .* → check DOCTOR_EXPERIENCE_ID/,
    );
    expect(run.report.exitCode).toBe(1);
  });
});

describe('npm run doctor when sign-ins are rate limited', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rates: { signinPerMinute: 1 } });
  });
  afterAll(() => emulator.close());

  it('says so with the Retry-After and how long to wait', async () => {
    // Someone else (a running subgraph) has just used the email's one sign-in of the minute.
    expect((await signIn(emulator, API_USER.email, API_USER.password)).status).toBe(200);
    const run = await runDoctorForTest({ env: remoteEnv(emulator.url, API_USER.email, API_USER.password) });

    expect(run.line('sign-in')).toMatch(
      /^FAIL {2}sign-in: rate limited: 429 Too many requests \(Retry-After (\d+) s\) → wait \1 s and run again/,
    );
    expect(run.line('dashboard query')).toBe('skip  dashboard query: skipped: no signed-in token');
    expect(run.report.exitCode).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 2, dashboard: 0, render: 0 });
  });
});
