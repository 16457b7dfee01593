/**
 * SIGTERM to the real process (`npm start`, embedded emulator): readiness
 * turns 503 at once while GraphQL keeps answering during the shutdown delay
 * (5 s by default), then the process drains and exits 0. Apollo Server's own
 * signal handler must not close the listener first.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { logLines } from '../support/subgraphReplica';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

function embeddedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0' };
  for (const name of ['REPORTING_BASE_URL', 'RECOMMENDER_URL', 'REPORTING_EMAIL', 'REPORTING_PASSWORD', 'NODE_ENV', 'METRICS_PORT'])
    delete env[name];
  return env;
}

it('answers 503 on /health/ready and still serves GraphQL after SIGTERM, then exits 0', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: REPO_ROOT,
    env: embeddedEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** Resolves with the first log line carrying this message. */
  const logged = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const line = logLines(output).find((entry) => entry.msg === msg);
        if (line !== undefined) {
          child.stdout.off('data', check);
          resolve(line);
        }
      };
      child.stdout.on('data', check);
      check();
      void exited.then(() => reject(new Error(`exited before logging "${msg}":\n${output}`)));
    });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  try {
    const url = String((await logged('subgraph listening')).url).replace('localhost', '127.0.0.1');
    const base = url.replace(/\/graphql$/, '');
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);

    child.kill('SIGTERM');
    await logged('shutting down');
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'stopping', signIn: { state: 'ok' } });
    const during = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    });
    expect(await during.json()).toEqual({ data: { __typename: 'Query' } });

    expect(await exited).toBe(0);
    expect(logLines(output).map((entry) => entry.msg)).toContain('shut down');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}, 60_000);
