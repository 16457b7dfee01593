/**
 * A real `redis-server` (the Debian package) for the Redis suites: started
 * on a free loopback port with its own temporary directory, no persistence,
 * stoppable and restartable on the same port (to test outages).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { REDIS_INSTALL_HINT, redisServerAvailable } from './redisAvailability';

/** `describe` when redis-server can run here, `describe.skip` otherwise (jest's global setup prints the one hint line). */
export function describeWithRedis(name: string, suite: () => void): void {
  (redisServerAvailable() ? describe : describe.skip)(name, suite);
}

export interface RedisServer {
  /** `redis://127.0.0.1:port` (with the password when one was set). */
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit; its data is gone (no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Kills it (SIGKILL, as a crash would) and waits for it to exit; `start` brings it back, empty. */
  kill(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered, as a stalled host; `resume` (SIGCONT) answers again with its data. */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  password?: string;
  /** More redis-server arguments, e.g. `['--replicaof', '127.0.0.1', '6379']` or `['--cluster-enabled', 'yes']`. */
  args?: readonly string[];
  /** TLS only (the port speaks TLS, `rediss://`), and clients must present a certificate this CA signed. */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

const READY_TIMEOUT_MS = 10_000;

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-test-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await spawnRedis(port, dir, options);
  };
  const stopWith = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    // A paused server (SIGSTOP) would hold SIGTERM until continued.
    running.kill('SIGCONT');
    await exited;
  };
  const stop = () => stopWith('SIGTERM');
  await start();
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    url: `${options.tls === undefined ? 'redis' : 'rediss'}://${auth}127.0.0.1:${port}`,
    port,
    start,
    stop,
    kill: () => stopWith('SIGKILL'),
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function spawnRedis(port: number, dir: string, options: RedisServerOptions): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--loglevel', 'notice'];
  // A replica must authenticate to its primary with the same password.
  if (options.password !== undefined) args.push('--requirepass', options.password, '--masterauth', options.password);
  const { tls } = options;
  if (tls !== undefined) {
    // Later arguments win: the plain port is closed, the same port number speaks TLS.
    args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile);
    args.push('--tls-ca-cert-file', tls.caFile, '--tls-auth-clients', 'yes');
  }
  args.push(...(options.args ?? []));
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`redis-server not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', (error) => fail(new Error(`${REDIS_INSTALL_HINT} (${error.message})`)));
    const exitedEarly = (code: number | null) => fail(new Error(`redis-server exited with ${code} before it was ready:\n${output}`));
    child.once('exit', exitedEarly);
    const watchForReady = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      child.stdout?.off('data', watchForReady);
      child.stdout?.resume();
      resolve(child);
    };
    child.stdout?.on('data', watchForReady);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  });
}
