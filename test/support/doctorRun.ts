import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../emulator';
import { runDoctor, type DoctorOptions, type DoctorReport } from '../../src/doctor/runDoctor';

export interface DoctorRun {
  report: DoctorReport;
  lines: string[];
  /** Each check's status, in the order printed. */
  statuses: string[];
  /** The printed line of one check (by the start of its name), or a test failure naming the output. */
  line(check: string): string;
}

/** The doctor in this process, its lines collected. */
export async function runDoctorForTest(
  options: Omit<DoctorOptions, 'write' | 'spend' | 'nowMs'> & Partial<Pick<DoctorOptions, 'spend' | 'nowMs'>>,
): Promise<DoctorRun> {
  const lines: string[] = [];
  const report = await runDoctor({ spend: true, nowMs: Date.now, ...options, write: (line) => lines.push(line) });
  return {
    report,
    lines,
    statuses: report.results.map((result) => `${result.check}: ${result.status}`),
    line(check) {
      const found = lines.find((line) => /^(pass|FAIL|skip) {2}/.test(line) && line.slice(6).startsWith(check));
      if (found === undefined) throw new Error(`no line for "${check}" in:\n${lines.join('\n')}`);
      return found;
    },
  };
}

/** The variables that select a remote upstream, pointing both hosts at `url`. */
export function remoteEnv(url: string, email: string, password: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    REPORTING_BASE_URL: url,
    RECOMMENDER_URL: url,
    REPORTING_EMAIL: email,
    REPORTING_PASSWORD: password,
    UPSTREAM_TIMEOUT_MS: '5000',
    ...extra,
  };
}

export interface EmulatorCounts {
  signin: number;
  dashboard: number;
  render: number;
}

/** Requests the emulator received since its stats were last reset. */
export async function emulatorCounts(emulator: RunningEmulator): Promise<EmulatorCounts> {
  const response = await fetch(`${emulator.url}/__emulator/stats`);
  const stats = (await response.json()) as Record<keyof EmulatorCounts, { count: number }>;
  return { signin: stats.signin.count, dashboard: stats.dashboard.count, render: stats.render.count };
}

export async function resetEmulatorCounts(emulator: RunningEmulator): Promise<void> {
  const response = await fetch(`${emulator.url}/__emulator/stats`, { method: 'DELETE' });
  if (response.status !== 204) throw new Error(`resetting the emulator's stats answered ${response.status}`);
}

/** A port on 127.0.0.1 that nothing listens on: taken from the OS, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
