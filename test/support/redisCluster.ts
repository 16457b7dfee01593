/**
 * A 3-node Redis Cluster (3 primaries, no replicas) on loopback ephemeral
 * ports, made with `redis-server --cluster-enabled yes` ×3 and
 * `redis-cli --cluster create … --cluster-yes`, for the Cluster suites.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redisServer';
import { waitFor } from './redisSentinel';

const run = promisify(execFile);

export interface RedisClusterSetup {
  nodes: RedisServer[];
  /** `127.0.0.1:port,…`, as REDIS_CLUSTER_NODES takes it. */
  seeds: string;
  close(): Promise<void>;
}

export async function startRedisCluster(options: { password: string }): Promise<RedisClusterSetup> {
  const args = ['--cluster-enabled', 'yes', '--cluster-node-timeout', '2000'];
  const nodes = await Promise.all([0, 1, 2].map(() => startRedisServer({ password: options.password, args })));
  const close = async () => {
    await Promise.all(nodes.map((node) => node.close()));
  };
  try {
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-yes'], {
      env: { ...process.env, REDISCLI_AUTH: options.password },
      timeout: 30_000,
    });
    for (const node of nodes) {
      const client = new Redis({ host: '127.0.0.1', port: node.port, password: options.password, lazyConnect: true });
      try {
        await waitFor(async () => (await client.cluster('INFO')).includes('cluster_state:ok'), `node ${node.port} to see the cluster ok`);
      } finally {
        client.disconnect();
      }
    }
    return { nodes, seeds: addresses.join(','), close };
  } catch (error) {
    await close();
    throw error;
  }
}
