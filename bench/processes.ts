import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEMO_EMAIL, DEMO_PASSWORD } from './upstreamClient';

/*
 * The benchmark measures the built programs as users run them (`npm run
 * emulator`, `npm start`), each in its own process, so that the load
 * generator never shares an event loop with what it measures.
 */

const ROOT = join(__dirname, '..');

export interface SeededExperience {
  id: string;
  rankingProfile: string;
  domain: string;
}

export interface EmulatorProcess {
  url: string;
  pid: number;
  /** From spawn to the "listening" line: Node start-up, module loading, demo data, listen. */
  startupMs: number;
  experiences: SeededExperience[];
  stop(): Promise<void>;
}

export interface SubgraphProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The emulator as both upstreams of a subgraph, signed in as its demo API user: every bench's base environment. */
export function demoUpstreamEnv(emulatorUrl: string): Record<string, string> {
  return { REPORTING_BASE_URL: emulatorUrl, RECOMMENDER_URL: emulatorUrl, REPORTING_EMAIL: DEMO_EMAIL, REPORTING_PASSWORD: DEMO_PASSWORD };
}

/** Starts `dist/emulator/main.js` on a free port and reads its banner. */
export async function spawnEmulator(env: Record<string, string>): Promise<EmulatorProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'dist/emulator/main.js')], {
    env: { ...process.env, EMULATOR_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const experiences: SeededExperience[] = [];
  let url = '';
  let startupMs = 0;
  const lines = createInterface({ input: child.stdout! });
  let inExperiences = false;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const listening = /^Emulator listening on (\S+)/.exec(line);
      if (listening) {
        url = listening[1];
        startupMs = performance.now() - started;
      } else if (line === 'Seeded experiences:') {
        inExperiences = true;
      } else if (inExperiences) {
        const match = /^\s+(\S+)\s+(\S+)\s+(\S+)/.exec(line);
        if (match) experiences.push({ id: match[1], rankingProfile: match[2], domain: match[3] });
      }
      // The banner is one write, so its lines arrive together: resolve after the whole chunk.
      if (url !== '' && experiences.length > 0) setImmediate(resolve);
    });
  });
  child.removeAllListeners('exit');
  return { url, pid: child.pid!, startupMs, experiences, stop: () => stop(child) };
}

/**
 * Starts `dist/src/index.js` (or another build's entry) against the given upstream and waits until it reports ready,
 * with `--expose-gc` as `npm start` and the image run it (a flood of subscriptions is collected once over).
 */
export async function spawnSubgraph(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  entry = join(ROOT, 'dist/src/index.js'),
): Promise<SubgraphProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--expose-gc', ...nodeArgs, entry], {
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`subgraph exited with ${code} before it was ready`);
  });
  await Promise.race([waitReady(`${url}/health/ready`), exited]);
  return { url: `${url}/graphql`, pid: child.pid!, stop: () => stop(child) };
}

/** Resident and peak resident memory of a process, in MiB (Linux /proc). */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Linux's clock ticks per second for /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

/** User plus system CPU seconds of a process so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After the command name: state is field 3, utime field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export async function waitReady(url: string): Promise<void> {
  // Poll with a bounded number of attempts: start-up generates demo data only in embedded mode.
  for (let attempt = 0; attempt < 600; attempt++) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never became ready`);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
