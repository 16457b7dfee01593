/**
 * The Docker image as it ships, built from the Dockerfile unchanged and run: the engine is
 * installed and started when missing (scripts/docker/engine.sh), the base image is the real
 * `node:24-bookworm-slim` when present, else a local stand-in (scripts/docker/stand-in-base.sh),
 * and the build gets the host's npm CA bundle as a build secret (scripts/docker/build.sh). Every
 * container and network carries this run's label and is removed at the end; a dockerd this test
 * started is stopped again.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { DEMO_API_USER } from '../../emulator';
import { attempt, docker, publishedUrl, run, waitForLog } from './dockerCli';

const IMAGE = 'news-analytics-subgraph:test';
const RUN_LABEL = `news-analytics-subgraph-test=${randomUUID()}`;
/** The stop timeout docs/deployment.md documents: SHUTDOWN_DELAY_SECONDS (5) + the forced exit's 15 s + a margin. */
const STOP_TIMEOUT_SECONDS = 25;
const SHUTDOWN_DELAY_SECONDS = 5;
/** The first run makes the stand-in base (debootstrap) and downloads every dependency. */
const PREPARE_TIMEOUT_MS = 25 * 60_000;
const START_TIMEOUT_MS = 60_000;
const DASHBOARD_QUERY = '{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }';

let startedEngine: string | undefined;
let caFile: string | undefined;
let secretsDir: string;
let network: string | undefined;

beforeAll(
  async () => {
    secretsDir = mkdtempSync(path.join(tmpdir(), 'image-test-secrets-'));
    const engine = await run('scripts/docker/engine.sh', [], 5 * 60_000);
    startedEngine = /^engine: started (\d+)/m.exec(engine.stdout)?.[1];
    await run('scripts/docker/stand-in-base.sh', [], PREPARE_TIMEOUT_MS);
    const started = Date.now();
    const build = await run('scripts/docker/build.sh', [IMAGE, '--progress=plain'], PREPARE_TIMEOUT_MS);
    const size = Number(await docker(['image', 'inspect', IMAGE, '--format', '{{.Size}}']));
    console.log(`image ${IMAGE} built in ${((Date.now() - started) / 1000).toFixed(0)} s; size ${(size / 1e6).toFixed(0)} MB`);
    caFile = /^build: npm CA bundle from (.+) \(build secret npm_ca\)$/m.exec(build.stdout + build.stderr)?.[1];
  },
  PREPARE_TIMEOUT_MS * 2 + 5 * 60_000,
);

afterAll(async () => {
  const containers = await attempt('docker', ['ps', '--all', '--quiet', '--filter', `label=${RUN_LABEL}`], 30_000);
  const ids = containers.stdout.split('\n').filter(Boolean);
  if (ids.length > 0) await attempt('docker', ['rm', '--force', '--volumes', ...ids], 60_000);
  if (network !== undefined) await attempt('docker', ['network', 'rm', network], 30_000);
  rmSync(secretsDir, { recursive: true, force: true });
  if (startedEngine !== undefined) await run('scripts/docker/engine.sh', ['stop', startedEngine], 90_000);
}, 3 * 60_000);

/** `docker run --detach` with this run's label, port 4001 published on loopback only. */
async function startContainer(options: readonly string[], command: readonly string[] = []): Promise<string> {
  return docker(['run', '--detach', '--label', RUN_LABEL, '--publish', '127.0.0.1::4001', ...options, IMAGE, ...command]);
}

async function startSubgraph(options: readonly string[] = []): Promise<{ id: string; url: string }> {
  const id = await startContainer([`--stop-timeout=${STOP_TIMEOUT_SECONDS}`, ...options]);
  await waitForLog(id, /"msg":"subgraph listening"/, START_TIMEOUT_MS);
  return { id, url: await publishedUrl(id) };
}

async function graphql(
  url: string,
  query: string,
): Promise<{ status: number; body: { data?: Record<string, unknown>; errors?: unknown[] } }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] } };
}

/** A standalone emulator in its own container, reachable as http://emulator:4010 on this run's network. */
async function startEmulatorContainer(): Promise<void> {
  network = `image-test-${randomUUID().slice(0, 8)}`;
  await docker(['network', 'create', '--label', RUN_LABEL, network]);
  const id = await startContainer(
    ['--network', network, '--network-alias', 'emulator', '--env', 'EMULATOR_HOST=0.0.0.0', '--env', 'EMULATOR_PORT=4010'],
    ['node', 'dist/emulator/main.js'],
  );
  await waitForLog(id, /Emulator listening/, START_TIMEOUT_MS);
}

function upstreamOptions(passwordFile: string): string[] {
  return [
    ...['--network', network ?? 'bridge'],
    ...['--volume', `${passwordFile}:/run/secrets/reporting_password:ro`],
    ...['--env', 'REPORTING_BASE_URL=http://emulator:4010', '--env', 'RECOMMENDER_URL=http://emulator:4010'],
    // The image runs with NODE_ENV=production: open on purpose, the test is the only caller.
    ...['--env', 'CALLER_AUTH=none'],
    ...['--env', `REPORTING_EMAIL=${DEMO_API_USER.email}`, '--env', 'REPORTING_PASSWORD_FILE=/run/secrets/reporting_password'],
  ];
}

function secretFile(name: string, content: string, mode: number): string {
  const file = path.join(secretsDir, name);
  writeFileSync(file, `${content}\n`);
  chmodSync(file, mode);
  return file;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]{100,16384}?-----END CERTIFICATE-----/g;
const certificateBody = (pem: string): string => pem.replace(/-----[A-Z ]+-----|\s+/g, '');

/** Certificates the host trusts beyond the roots built into Node (a TLS proxy's CA), as base64 bodies. */
function extraCertificates(bundle: string, nodeRoots: readonly string[]): string[] {
  const known = new Set(nodeRoots.map(certificateBody));
  return [...bundle.matchAll(PEM_CERTIFICATE)].map((match) => certificateBody(match[0])).filter((body) => !known.has(body));
}

/** Every PEM certificate in any file of a container's file system (`docker export`), as base64 bodies. */
async function certificatesIn(container: string): Promise<Set<string>> {
  const exporter = spawn('docker', ['export', container], { stdio: ['ignore', 'pipe', 'ignore'] });
  const found = new Set<string>();
  let carried = '';
  for await (const chunk of exporter.stdout as AsyncIterable<Buffer>) {
    // The end of the previous chunk goes along, so a certificate cut in two is still seen whole.
    const text = carried + chunk.toString('latin1');
    for (const match of text.matchAll(PEM_CERTIFICATE)) found.add(certificateBody(match[0]));
    carried = text.slice(-20_000);
  }
  return found;
}

describe('the image', () => {
  it('answers /graphql against the embedded emulator, is ready, and runs as uid 1000', async () => {
    const { id, url } = await startSubgraph();

    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    const { status, body } = await graphql(url, DASHBOARD_QUERY);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data?.dashboard).toEqual([expect.objectContaining({ metric: 'PAGE_VIEWS_TOTAL', total: expect.any(Number) })]);
    // The server itself (PID 1), not only the image's default user.
    expect(await docker(['exec', id, 'sh', '-c', "awk '/^Uid:/ { print $2, $3 }' /proc/1/status"])).toBe('1000 1000');
  });

  it('keeps the app files owned by root and unwritable by the app user', async () => {
    const output = await docker([
      ...['run', '--rm', '--label', RUN_LABEL, IMAGE, 'sh', '-c'],
      'id -u; find /app/dist /app/node_modules /app/schema /app/package.json ! -user root -print -quit; find /app -writable -print -quit',
    ]);
    // uid 1000, then no file outside root's ownership and none the app user may write.
    expect(output).toBe('1000');
  });

  it('ships without the build CA bundle, proxy settings or build secrets', async () => {
    const config = JSON.parse(await docker(['image', 'inspect', IMAGE, '--format', '{{json .Config.Env}}'])) as string[];
    expect(config.filter((entry) => /CA_CERT|PROXY|npm_config|SSL_CERT/i.test(entry))).toEqual([]);
    const history = await docker(['history', '--no-trunc', '--format', '{{.CreatedBy}}', IMAGE]);
    expect(history).not.toMatch(/npm_ca|NODE_EXTRA_CA_CERTS|PROXY/i);

    const container = await docker(['create', '--label', RUN_LABEL, IMAGE]);
    const secretsListing = await run('sh', ['-c', `docker export ${container} | tar -t | grep -c '^run/secrets/' || true`], 120_000);
    expect(secretsListing.stdout.trim()).toBe('0');
    // The host's own CAs (a TLS proxy's), when the build had them: in no file of the image.
    // The host's own CAs (a TLS proxy's), when the build had them: in no file of the image. The image's
    // Node binary carries its roots as PEM text, some newer than the host Node's: those are not the host's.
    if (caFile !== undefined) {
      const imageRoots = JSON.parse(
        await docker(['run', '--rm', '--label', RUN_LABEL, IMAGE, 'node', '-p', "JSON.stringify(require('node:tls').rootCertificates)"]),
      ) as string[];
      const hostOnly = extraCertificates(readFileSync(caFile, 'utf8'), [...rootCertificates, ...imageRoots]);
      const inImage = await certificatesIn(container);
      expect(inImage.size).toBeGreaterThan(0);
      expect(hostOnly.filter((body) => inImage.has(body))).toEqual([]);
    }
  });

  describe('with the password as a file (REPORTING_PASSWORD_FILE, mounted read-only)', () => {
    beforeAll(() => startEmulatorContainer(), START_TIMEOUT_MS * 2);

    it('signs in with a 0444 file and answers a dashboard query', async () => {
      const file = secretFile('readable', DEMO_API_USER.password, 0o444);
      const { url } = await startSubgraph(upstreamOptions(file));

      const { status, body } = await graphql(url, DASHBOARD_QUERY);

      expect(status).toBe(200);
      expect(body.errors).toBeUndefined();
      expect(body.data?.dashboard).toEqual([expect.objectContaining({ metric: 'PAGE_VIEWS_TOTAL', total: expect.any(Number) })]);
    });

    it('refuses to start on a 0600 file owned by root, naming the path and EACCES, never the content', async () => {
      const file = secretFile('root-only', DEMO_API_USER.password, 0o600);
      const id = await startContainer(upstreamOptions(file));

      const exitCode = await docker(['wait', id], START_TIMEOUT_MS);
      const logs = await run('docker', ['logs', id], 30_000);

      expect(Number(exitCode)).not.toBe(0);
      expect(logs.stdout + logs.stderr).toMatch(
        /\/run\/secrets\/reporting_password[^\n]*EACCES|EACCES[^\n]*\/run\/secrets\/reporting_password/,
      );
      expect(logs.stdout + logs.stderr).not.toContain(DEMO_API_USER.password);
    });
  });

  it('drains on docker stop: readiness 503 first, GraphQL still served, exit 0 before the stop timeout', async () => {
    const { id, url } = await startSubgraph();
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);

    const stopping = Date.now();
    // No --time: Docker uses the container's own --stop-timeout.
    const stopped = docker(['stop', id], (STOP_TIMEOUT_SECONDS + 15) * 1000);
    let readiness = 200;
    // Readiness turns 503 when the signal arrives, and stays so for SHUTDOWN_DELAY_SECONDS: poll it,
    // bounded in time and in count, pausing briefly between probes.
    const deadline = Date.now() + SHUTDOWN_DELAY_SECONDS * 1000;
    for (let probe = 0; probe < 1000 && readiness === 200 && Date.now() < deadline; probe += 1) {
      readiness = (await fetch(`${url}/health/ready`)).status;
      if (readiness === 200) await delay(10);
    }
    expect(readiness).toBe(503);
    const during = await graphql(url, '{ _service { sdl } }');
    expect(during.status).toBe(200);
    await stopped;
    const seconds = (Date.now() - stopping) / 1000;

    const state = JSON.parse(await docker(['inspect', id, '--format', '{{json .State}}'])) as { ExitCode: number; OOMKilled: boolean };
    expect(state.ExitCode).toBe(0);
    expect(seconds).toBeGreaterThanOrEqual(SHUTDOWN_DELAY_SECONDS);
    expect(seconds).toBeLessThan(STOP_TIMEOUT_SECONDS);
    expect((await run('docker', ['logs', id], 30_000)).stdout).toMatch(/"msg":"shut down"/);
  });
});
