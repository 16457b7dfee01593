import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ListeningProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Runs one of this folder's TypeScript programs (through tsx's loader) in its
 * own process and waits for its `listening <url>` line.
 */
export async function spawnListening(script: string, env: Record<string, string>): Promise<ListeningProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${script} exited with ${code} before it was listening`);
  });
  const listening = new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      const match = /^listening (\S+)/.exec(line);
      if (match) resolve(match[1]);
    });
  });
  const url = await Promise.race([listening, exited]);
  return { url, pid: child.pid!, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
