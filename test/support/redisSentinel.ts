/**
 * A Sentinel set-up as operators run one, on loopback ephemeral ports: a
 * primary, a replica and three `redis-sentinel` processes (quorum 2), with
 * failover bounded for tests (down after 1 s). Debian's `redis-sentinel`
 * package provides the binary; the suites skip with a hint without it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { redisServerAvailable } from './redisAvailability';
import { freePort, startRedisServer, type RedisServer } from './redisServer';

const SENTINEL_INSTALL_HINT =
  'redis-sentinel is not on PATH: the Sentinel suites are skipped (install it with: apt-get install -y redis-sentinel)';

export const SENTINEL_GROUP = 'analytics-primary';
const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 5_000;
const READY_TIMEOUT_MS = 15_000;
const POLL_MS = 100;

/** `.ci/run` sets REDIS_TESTS=required: there a missing redis-sentinel fails the suites instead of skipping them. */
function redisSentinelAvailable(): boolean {
  if (process.env.REDIS_TESTS === 'required') return true;
  return redisServerAvailable() && spawnSync('redis-sentinel', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** `describe` when redis-sentinel can run here, `describe.skip` (with the hint, once) otherwise. */
export function describeWithSentinel(name: string, suite: () => void): void {
  if (redisSentinelAvailable()) {
    describe(name, suite);
    return;
  }
  process.stdout.write(`\n${SENTINEL_INSTALL_HINT}\n`);
  describe.skip(name, suite);
}

export interface SentinelSetup {
  primary: RedisServer;
  replica: RedisServer;
  /** `127.0.0.1:port,…`, as REDIS_SENTINELS takes it. */
  sentinels: string;
  /** The port of the node the sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** Resolves once the sentinels name another primary than `oldPort` (bounded). */
  waitForFailover(oldPort: number): Promise<number>;
  close(): Promise<void>;
}

export async function startSentinelSetup(options: { password: string }): Promise<SentinelSetup> {
  const primary = await startRedisServer({ password: options.password });
  const replica = await startRedisServer({ password: options.password, args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-sentinel-'));
  const sentinels: { port: number; child: ChildProcess }[] = [];
  const close = async () => {
    await Promise.all(sentinels.map(({ child }) => stopProcess(child)));
    await Promise.all([primary.close(), replica.close()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => replicationUp(replica, options.password), 'the replica to sync with the primary');
    for (let index = 0; index < 3; index += 1) {
      const port = await freePort();
      const config = path.join(dir, `sentinel-${index}.conf`);
      writeFileSync(config, sentinelConfig(port, primary.port, options.password));
      sentinels.push({ port, child: await spawnSentinel(config) });
    }
    const ask = (port: number) => new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
    // Failover needs each sentinel to know the replica and the two other sentinels.
    for (const { port } of sentinels) {
      const client = ask(port);
      try {
        await waitFor(async () => {
          const [peers, replicas] = await Promise.all([
            client.call('SENTINEL', 'SENTINELS', SENTINEL_GROUP) as Promise<unknown[]>,
            client.call('SENTINEL', 'REPLICAS', SENTINEL_GROUP) as Promise<unknown[]>,
          ]);
          return peers.length === 2 && replicas.length === 1;
        }, `sentinel ${port} to see its peers and the replica`);
      } finally {
        client.disconnect();
      }
    }
    const primaryPort = async () => {
      const client = ask(sentinels[0].port);
      try {
        const [, port] = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_GROUP)) as [string, string];
        return Number(port);
      } finally {
        client.disconnect();
      }
    };
    return {
      primary,
      replica,
      sentinels: sentinels.map(({ port }) => `127.0.0.1:${port}`).join(','),
      primaryPort,
      async waitForFailover(oldPort) {
        let promoted = oldPort;
        await waitFor(
          async () => {
            promoted = await primaryPort();
            return promoted !== oldPort && (await isPrimary(promoted, options.password));
          },
          'the sentinels to promote the replica',
          DOWN_AFTER_MS + FAILOVER_TIMEOUT_MS * 3,
        );
        return promoted;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function sentinelConfig(port: number, primaryPort: number, password: string): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    `sentinel monitor ${SENTINEL_GROUP} 127.0.0.1 ${primaryPort} 2`,
    `sentinel auth-pass ${SENTINEL_GROUP} ${password}`,
    `sentinel down-after-milliseconds ${SENTINEL_GROUP} ${DOWN_AFTER_MS}`,
    `sentinel failover-timeout ${SENTINEL_GROUP} ${FAILOVER_TIMEOUT_MS}`,
    `sentinel parallel-syncs ${SENTINEL_GROUP} 1`,
    '',
  ].join('\n');
}

function spawnSentinel(config: string): Promise<ChildProcess> {
  const child = spawn('redis-sentinel', [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`redis-sentinel not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', (error) => fail(new Error(`${SENTINEL_INSTALL_HINT} (${error.message})`)));
    const exitedEarly = (code: number | null) => fail(new Error(`redis-sentinel exited with ${code} before it was ready:\n${output}`));
    child.once('exit', exitedEarly);
    const watch = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes('+monitor master')) return;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      child.stdout?.off('data', watch);
      child.stdout?.resume();
      resolve(child);
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

async function replicationUp(replica: RedisServer, password: string): Promise<boolean> {
  const client = new Redis({ host: '127.0.0.1', port: replica.port, password, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    return (await client.info('replication')).includes('master_link_status:up');
  } finally {
    client.disconnect();
  }
}

async function isPrimary(port: number, password: string): Promise<boolean> {
  const client = new Redis({ host: '127.0.0.1', port, password, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    return (await client.info('replication')).includes('role:master');
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Polls `check` until it is true, bounded in time: the set-up's facts change on their own (gossip, replication). */
export async function waitFor(check: () => Promise<boolean>, what: string, withinMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + withinMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`timed out after ${withinMs} ms waiting for ${what}${lastError instanceof Error ? ` (${lastError.message})` : ''}`);
}
