import { spawnSync } from 'node:child_process';

export const REDIS_INSTALL_HINT =
  'redis-server is not on PATH: the Redis suites are skipped (install it with: apt-get install -y redis-server)';

/** `.ci/run` sets REDIS_TESTS=required: there a missing redis-server fails the suites instead of skipping them. */
export function redisServerAvailable(): boolean {
  if (process.env.REDIS_TESTS === 'required') return true;
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}
