/**
 * `src/index.ts` as real processes (the way `npm start` runs it), for tests
 * that need several replicas: each started with its own environment, found
 * through its "subgraph listening" log line, killed in afterAll.
 *
 * Every process started here is also killed after the test file whatever
 * happened (a failed start, a hook's timeout): a process left running keeps
 * jest's event loop alive through its pipes, and the whole run hangs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Every replica process this file started and has not seen exit. */
const running = new Set<ChildProcess>();

afterAll(async () => {
  await Promise.all([...running].map((child) => killAndWait(child)));
});

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
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
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

/**
 * `count` replicas with the same environment, started together. If one fails to start, the others are
 * stopped before the error is thrown: the test never holds half a cluster it cannot stop.
 */
export async function startReplicas(count: number, env: Record<string, string>): Promise<Replica[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startReplica(env)));
  const failure = started.find((result) => result.status === 'rejected');
  const replicas = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failure === undefined) return replicas;
  await Promise.all(replicas.map((replica) => replica.stop()));
  throw failure.reason;
}

/** Resolves with the url of the process's "subgraph listening" line; rejects, with its output, if it exits first. */
function listeningUrl(child: ChildProcess, output: () => string, exited: Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = logLines(output()).find((entry) => entry.msg === 'subgraph listening');
      if (typeof line?.url !== 'string') return;
      child.stdout?.off('data', check);
      resolve(line.url.replace('localhost', '127.0.0.1'));
    };
    child.stdout?.on('data', check);
    void exited.then(() => reject(new Error(`exited before listening:\n${output()}`)));
  });
}

/** SIGKILL (a process that never finished starting has no drain to wait for), then its exit. */
async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
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
