import { REDIS_INSTALL_HINT, redisServerAvailable } from './redisAvailability';

/** One visible line per test run (not one per suite) when the Redis suites cannot run here. */
export default function redisGlobalSetup(): void {
  if (!redisServerAvailable()) process.stdout.write(`\n${REDIS_INSTALL_HINT}\n`);
}
