/**
 * `src/index.ts` as real processes (the way `npm start` runs it), for tests
 * that need several replicas: each started with its own environment, found
 * through its "subgraph listening" log line, killed in afterAll.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const STARTUP_TIMEOUT_MS = 40_000;

export interface Replica {
  /** `http://127.0.0.1:port/graphql`. */
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Only what the test passes selects the upstream: nothing leaks in from the runner's environment. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(REPORTING_|RECOMMENDER_|REDIS_|EMULATOR_|NODE_ENV$|PORT$)/.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}

export async function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: REPO_ROOT,
    env: cleanEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await listeningUrl(child, () => output, exited);
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function listeningUrl(child: ChildProcess, output: () => string, exited: Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "subgraph listening" line within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`)),
      STARTUP_TIMEOUT_MS,
    );
    const check = () => {
      const line = logLines(output()).find((entry) => entry.msg === 'subgraph listening');
      if (typeof line?.url !== 'string') return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve(line.url.replace('localhost', '127.0.0.1'));
    };
    child.stdout?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited before listening:\n${output()}`));
    });
  });
}

/** The JSON log lines of a subgraph process's output. */
export function logLines(output: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}
