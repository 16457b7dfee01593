/**
 * `npm run doctor` as a real process (src/doctor/main.ts through tsx): its
 * exit code, its options, DOCTOR_EXPERIENCE_ID read from the environment, and
 * that neither the password nor the token reaches its output in any form,
 * even when the upstream echoes them back.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { RunningEmulator } from '../../emulator';
import { startTestEmulator } from '../support/emulator';
import { emulatorCounts, remoteEnv, resetEmulatorCounts } from '../support/doctorRun';
import { sendJson, useFakeUpstream } from '../support/fakeUpstream';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const API_USER = { email: 'api@demo.example', password: 'demo-api-password' };

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the doctor with exactly `env` (plus PATH) and resolves when it exits. */
function runDoctorProcess(env: NodeJS.ProcessEnv, args: string[] = []): Promise<Finished> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/doctor/main.ts', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The forms a secret travels in: as is, inside a JSON string, base64, base64url, URL-encoded. */
function secretForms(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    encodeURIComponent(secret),
  ];
}

describe('npm run doctor as a process, against the emulator', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(() => emulator.close());
  beforeEach(() => resetEmulatorCounts(emulator));

  it('exits 0 when every check passes, checking the experience named by DOCTOR_EXPERIENCE_ID', async () => {
    const experienceId = emulator.demo.experiences[0]!.id;
    const finished = await runDoctorProcess(
      remoteEnv(emulator.url, API_USER.email, API_USER.password, { DOCTOR_EXPERIENCE_ID: experienceId }),
    );

    expect(finished.stderr).toBe('');
    expect(finished.stdout).toContain(`pass  render.json: experience ${experienceId} on dailyglobe.example: 200`);
    expect(finished.stdout.trim().split('\n').at(-1)).toBe('doctor: 6 passed, 0 failed, 0 skipped');
    expect(finished.code).toBe(0);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 1, dashboard: 1, render: 1 });
  });

  it('sends no dashboard query with --no-spend', async () => {
    const finished = await runDoctorProcess(remoteEnv(emulator.url, API_USER.email, API_USER.password), ['--no-spend']);

    expect(finished.stdout).toContain('skip  dashboard query: skipped (--no-spend)');
    expect(finished.code).toBe(0);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 1, dashboard: 0, render: 0 });
  });

  it('exits 1 on a configuration error, naming the variables', async () => {
    const finished = await runDoctorProcess({ REPORTING_BASE_URL: emulator.url });

    expect(finished.stdout).toMatch(/^FAIL {2}configuration: RECOMMENDER_URL, REPORTING_EMAIL, REPORTING_PASSWORD are missing/);
    expect(finished.code).toBe(1);
    expect(await emulatorCounts(emulator)).toEqual({ signin: 0, dashboard: 0, render: 0 });
  });

  it('exits 2 on an unknown option, with the usage', async () => {
    const finished = await runDoctorProcess({}, ['--spend-less']);

    expect(finished.stderr).toContain('usage: npm run doctor [-- --no-spend]');
    expect(finished.code).toBe(2);
  });
});

describe('npm run doctor as a process, with no upstream configured', () => {
  it('checks an embedded emulator it starts itself, as npm start would, and exits 0', async () => {
    const finished = await runDoctorProcess({ EMULATOR_SCALE: '0.01' });

    expect(finished.stdout).toContain('pass  configuration: valid; no upstream configured');
    expect(finished.stdout).toMatch(/^pass {2}reporting host \(embedded emulator\): http:\/\/127\.0\.0\.1:\d+: /m);
    expect(finished.stdout).toMatch(/^pass {2}sign-in: api@demo\.example signed in \(role api\); token valid for 14 days/m);
    expect(finished.stdout).toMatch(/^pass {2}render\.json: experience IL_\S+ on \S+: 200, \d+ recommendations$/m);
    expect(finished.code).toBe(0);
  });
});

describe('npm run doctor as a process, against an https host', () => {
  // A self-signed certificate for localhost and 127.0.0.1, valid until 2126, made for this test only.
  const TLS_DIR = path.join(REPO_ROOT, 'test', 'support', 'doctorTls');
  let emulator: RunningEmulator;
  let https: HttpsServer;
  let httpsUrl = '';

  beforeAll(async () => {
    emulator = await startTestEmulator();
    https = createHttpsServer(
      { cert: readFileSync(path.join(TLS_DIR, 'cert.pem')), key: readFileSync(path.join(TLS_DIR, 'key.pem')) },
      (_request, response) => {
        response.writeHead(404).end();
      },
    );
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    httpsUrl = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => https.close(() => resolve()));
    await emulator.close();
  });

  it('passes TLS with a certificate this machine trusts, naming the protocol and the expiry', async () => {
    const env = remoteEnv(emulator.url, API_USER.email, API_USER.password, {
      RECOMMENDER_URL: httpsUrl,
      NODE_EXTRA_CA_CERTS: path.join(TLS_DIR, 'cert.pem'),
    });
    const finished = await runDoctorProcess(env, ['--no-spend']);

    expect(finished.stdout).toMatch(
      new RegExp(
        `^pass {2}recommender host \\(RECOMMENDER_URL\\): ${httpsUrl}: DNS ok \\(127\\.0\\.0\\.1\\), TCP ok \\(port \\d+\\), TLS ok \\(TLSv1\\.3, certificate valid until 2126-11-01T00:40:24\\.000Z\\)$`,
        'm',
      ),
    );
    expect(finished.code).toBe(0);
  });

  it('fails TLS with a certificate this machine does not trust, naming the reason', async () => {
    const finished = await runDoctorProcess(remoteEnv(emulator.url, API_USER.email, API_USER.password, { RECOMMENDER_URL: httpsUrl }), [
      '--no-spend',
    ]);

    expect(finished.stdout).toMatch(
      /^FAIL {2}recommender host \(RECOMMENDER_URL\): .*TCP ok \(port \d+\), TLS failed \(DEPTH_ZERO_SELF_SIGNED_CERT: self[- ]signed certificate[^)]*\) → /m,
    );
    expect(finished.code).toBe(1);
  });
});

describe('npm run doctor as a process, against an upstream that echoes secrets', () => {
  const password = `doctor-P@ss"w\\rd/+ü?-${process.pid}`;
  let token = '';
  const upstream = useFakeUpstream();

  beforeAll(async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    token = await new SignJWT({ sitesId: 7 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('doctor-test')
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 30 * 60)
      .sign(new TextEncoder().encode('doctor-test-signing-key'));
  });

  it('prints neither the password nor the token in any form, and reads a 30-minute lifetime from exp', async () => {
    const echoed = [...secretForms(password), ...secretForms(token)].join(' | ');
    upstream.handle((request, response) => {
      if (request.path === '/api/user/signin') sendJson(response, 200, { token, role: 'api', Site: { id: 7, domain: 'doctor.example' } });
      else if (request.path === '/api/dashboard/query')
        sendJson(response, 400, { msg: `Invalid params: ${echoed}`, errors: [{ path: 'x', message: echoed }] });
      else {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`failed for ${echoed}`);
      }
    });
    const finished = await runDoctorProcess(remoteEnv(upstream.url, 'api@doctor.example', password, { DOCTOR_EXPERIENCE_ID: 'IL_doctor' }));

    expect(finished.stdout).toMatch(/^pass {2}sign-in: api@doctor\.example signed in \(role api\); token valid for 30 min/m);
    expect(finished.stdout).toMatch(/^FAIL {2}dashboard query: the minimal query was refused: 400 Invalid params: \[redacted\]/m);
    expect(finished.stdout).toMatch(
      /^FAIL {2}render\.json: experience IL_doctor on doctor\.example: unexpected answer: 500 body: failed for \[redacted\]/m,
    );
    for (const form of [...secretForms(password), ...secretForms(token)]) {
      expect(finished.stdout).not.toContain(form);
      expect(finished.stderr).not.toContain(form);
    }
    expect(finished.code).toBe(1);
    // The password went to the sign-in (and nowhere else); the token to the dashboard query.
    expect(upstream.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /api/user/signin',
      'POST /api/dashboard/query',
      'GET /recommenderexperience/render.json',
    ]);
    expect(JSON.parse(upstream.requests[0]!.body)).toEqual({ email: 'api@doctor.example', password });
    expect(upstream.requests[1]!.headers.authorization).toBe(`Bearer ${token}`);
    // The smallest valid query (contract §2): the five mandatory fields, no filters.
    expect(JSON.parse(upstream.requests[1]!.body)).toEqual({
      dates: { last: { number: 1, dimension: 'day' } },
      filters: [],
      groupBy: [],
      metrics: ['pageViewsTotal'],
      order: { metric: 'pageViewsTotal', sort: 'DESC' },
    });
  });
});
