/**
 * `src/index.ts` as a real process (`node --import tsx`), the way `npm start`
 * runs it, from any working directory (a temp one with its own `.env`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { logLines } from './subgraphReplica';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const ENTRY = path.join(REPO_ROOT, 'src', 'index.ts');
// By URL, so the loader is found from a working directory without node_modules.
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;
const STARTUP_TIMEOUT_MS = 25_000;

/** Variables that would select a remote upstream or a port: each test sets what it means. */
const INHERITED_BUT_CLEARED = [
  'REPORTING_BASE_URL',
  'RECOMMENDER_URL',
  'REPORTING_EMAIL',
  'REPORTING_PASSWORD',
  'NODE_ENV',
  'PORT',
  'CALLER_AUTH',
];

export interface SubgraphProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGKILL when still running; resolves once it has exited. */
  kill(): Promise<void>;
}

export function startSubgraphProcess(options: { env: Record<string, string>; cwd?: string }): SubgraphProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_BUT_CLEARED) delete env[name];
  const child = spawn(process.execPath, ['--import', TSX_LOADER, ENTRY], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The first log line with this message, once it is written; rejects when the process exits first or after the timeout. */
export function logLine(running: SubgraphProcess, msg: string, timeoutMs = STARTUP_TIMEOUT_MS): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const find = () => logLines(running.output()).find((entry) => entry.msg === msg);
    const done = (settle: () => void) => {
      clearTimeout(timer);
      running.child.stdout?.off('data', check);
      settle();
    };
    const check = () => {
      const line = find();
      if (line !== undefined) done(() => resolve(line));
    };
    const timer = setTimeout(
      () => done(() => reject(new Error(`no "${msg}" line within ${timeoutMs} ms:\n${running.output()}`))),
      timeoutMs,
    );
    running.child.stdout?.on('data', check);
    void running.exited.then((code) => done(() => reject(new Error(`exited with ${code} before "${msg}":\n${running.output()}`))));
    check();
  });
}

/** The GraphQL URL of the "subgraph listening" line, on 127.0.0.1. */
export async function listeningUrl(running: SubgraphProcess): Promise<string> {
  const line = await logLine(running, 'subgraph listening');
  if (typeof line.url !== 'string') throw new Error(`"subgraph listening" without a url: ${JSON.stringify(line)}`);
  return line.url.replace('localhost', '127.0.0.1');
}
