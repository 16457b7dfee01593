import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LoadResult } from '../load';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../upstreamClient';

export interface ListeningProcess {
  url: string;
  pid: number;
  /** Its output after the `listening` line (a trace the node flags asked for) is the caller's to read. */
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Runs one of this folder's TypeScript programs (through tsx's loader) in its
 * own process, with `nodeArgs` (a profiler's or tracer's flags, which
 * NODE_OPTIONS does not take), and waits for its `listening <url>` line.
 */
export async function spawnListening(
  script: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<ListeningProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(__dirname, script)], {
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
  return { url, pid: child.pid!, child, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** A load run and the CPU time the measured process spent on it, per request (warm-up included). */
export type Measured = LoadResult & { cpuMicrosPerRequest: number };

/**
 * User plus system CPU time of a process in µs (Linux /proc, clock ticks of
 * 10 ms). On a shared 2-core machine, wall-clock figures swing with whatever
 * else runs; CPU time per request is what the process itself costs.
 */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * This subgraph's settings over the trivial upstream, as every side-by-side
 * scenario runs it: production mode, quiet logs, and no rate governor (the
 * real-host render rate, 600 a minute, would pace the run instead of it
 * being measured). Each scenario adds its answer-cache TTL.
 */
export function subgraphEnvOver(upstreamUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    // Open on purpose: a bench (or test) is the only caller.
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'warn',
    REPORTING_BASE_URL: upstreamUrl,
    RECOMMENDER_URL: upstreamUrl,
    REPORTING_EMAIL: DEMO_EMAIL,
    REPORTING_PASSWORD: DEMO_PASSWORD,
    RENDER_RATE_PER_MINUTE: '1000000000',
  };
}
