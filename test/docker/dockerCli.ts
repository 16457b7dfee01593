/**
 * The docker CLI and the scripts in scripts/docker/, as child processes with a deadline each, for
 * the image test (test/docker/image.test.ts).
 */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface Ran {
  stdout: string;
  stderr: string;
}

/** Runs a command; rejects with its output when it fails or outlives `timeoutMs`. */
export function run(command: string, args: readonly string[], timeoutMs: number): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: REPO_ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

export async function docker(args: readonly string[], timeoutMs = 60_000): Promise<string> {
  return (await run('docker', args, timeoutMs)).stdout.trim();
}

/** Runs a command; resolves with its exit code and output, whether it succeeded or not. */
export function attempt(command: string, args: readonly string[], timeoutMs: number): Promise<Ran & { code: number | null }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: REPO_ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ stdout, stderr, code });
      },
    );
  });
}

/** Resolves when a container's output (stdout and stderr) matches, rejects at the deadline or when the container ends first. */
export function waitForLog(container: string, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const follower = spawn('docker', ['logs', '--follow', container], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      follower.kill('SIGKILL');
      settle();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no ${pattern} in the output of ${container} within ${timeoutMs} ms:\n${output}`))),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (pattern.test(output)) finish(() => resolve(output));
    };
    follower.stdout.on('data', onData);
    follower.stderr.on('data', onData);
    follower.once('exit', () => {
      if (!pattern.test(output)) finish(() => reject(new Error(`${container} ended before ${pattern}:\n${output}`)));
    });
  });
}

/** The loopback URL a container's port 4001 is published on (`-p 127.0.0.1::4001`). */
export async function publishedUrl(container: string): Promise<string> {
  const mapping = (await docker(['port', container, '4001/tcp'])).split('\n')[0];
  return `http://${mapping}`;
}
