/**
 * `src/index.ts` as a real process, the way `npm start` runs it: embedded
 * emulator when no upstream is configured, one log line per operation,
 * graceful exit on SIGTERM, exit 1 on a configuration error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { postGraphQL } from '../support/federationGateway';
import { freePort } from '../support/redisServer';
import { logLines } from '../support/subgraphReplica';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const STARTUP_TIMEOUT_MS = 25_000;

interface RunningProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The environment without anything that would select a remote upstream. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['REPORTING_BASE_URL', 'RECOMMENDER_URL', 'REPORTING_EMAIL', 'REPORTING_PASSWORD', 'NODE_ENV', 'PORT'])
    delete env[name];
  return { ...env, ...extra };
}

function startProcess(env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: REPO_ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Resolves with the GraphQL URL from the "subgraph listening" log line. */
function listeningUrl(running: RunningProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "subgraph listening" line within ${STARTUP_TIMEOUT_MS} ms:\n${running.output()}`)),
      STARTUP_TIMEOUT_MS,
    );
    const check = () => {
      const line = logLines(running.output()).find((entry) => entry.msg === 'subgraph listening');
      if (typeof line?.url === 'string') {
        clearTimeout(timer);
        running.child.stdout?.off('data', check);
        resolve(line.url.replace('localhost', '127.0.0.1'));
      }
    };
    running.child.stdout?.on('data', check);
    void running.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${running.output()}`));
    });
  });
}

describe('the subgraph process', () => {
  let running: RunningProcess | undefined;

  afterEach(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
  });

  it('serves from the embedded emulator, logs operations without variables, and exits 0 on SIGTERM', async () => {
    const metricsPort = await freePort();
    running = startProcess({ PORT: '0', METRICS_PORT: String(metricsPort), EMULATOR_SCALE: '0.02', LOG_LEVEL: 'debug' });
    const url = await listeningUrl(running);
    expect(logLines(running.output()).some((entry) => String(entry.msg).includes('embedded emulator'))).toBe(true);

    const ready = await fetch(new URL('/health/ready', url));
    expect(ready.status).toBe(200);
    // METRICS_PORT serves the health checks too (a port of their own for the probes), and nothing of GraphQL.
    const management = `http://127.0.0.1:${metricsPort}`;
    const answers = await Promise.all(
      ['/health/live', '/health/ready', '/metrics', '/graphql', '/constructor'].map(
        async (route) => (await fetch(management + route)).status,
      ),
    );
    expect(answers).toEqual([200, 200, 200, 404, 404]);
    expect(await (await fetch(`${management}/health/ready`)).json()).toEqual(await (await fetch(new URL('/health/ready', url))).json());

    const dashboard = await postGraphQL<{ dashboard: { total: number }[] }>(
      url,
      'query Today { dashboard(query: { dates: { last: { number: 1, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }',
    );
    expect(dashboard.errors).toBeUndefined();
    expect(dashboard.data?.dashboard[0].total).toBeGreaterThan(0);

    const marker = 'reader-marker-5b1e';
    const unknown = await postGraphQL(
      url,
      'query Unknown($clientId: ID) { recommendations(experienceId: "IL_doesNotExist0000000000", domain: "dailyglobe.example", clientId: $clientId) { url } }',
      { clientId: marker },
    );
    expect(unknown.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);

    const output = running.output();
    const operations = logLines(output).filter((entry) => typeof entry.operationName === 'string');
    expect(operations.map((entry) => [entry.operationName, entry.errorCodes])).toEqual([
      ['Today', undefined],
      ['Unknown', ['NOT_FOUND']],
    ]);
    expect(operations.every((entry) => typeof entry.durationMs === 'number')).toBe(true);
    expect(output).not.toContain(marker);
    expect(output).not.toContain('demo-api-password');
    expect(output).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    expect(logLines(output).map((entry) => entry.msg)).toEqual(expect.arrayContaining(['shutting down', 'shut down']));
  });

  it('exits 1 naming the missing variables when the upstream is only partly configured', async () => {
    running = startProcess({ PORT: '0', REPORTING_BASE_URL: 'https://reporting.example' });
    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/RECOMMENDER_URL, REPORTING_EMAIL, REPORTING_PASSWORD are missing/);
  });
});
