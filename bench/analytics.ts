import { analyticsReport, benchAnalytics } from './analyticsBench';
import { UNLIMITED_RATES } from './emulatorBench';
import { demoUpstreamEnv, spawnEmulator, spawnSubgraph } from './processes';

/* `npm run bench:analytics`: only the article-analytics part of `npm run bench`, same processes and data. */

async function main(): Promise<void> {
  const emulator = await spawnEmulator({ EMULATOR_SEED: '42', ...UNLIMITED_RATES });
  try {
    const subgraph = await spawnSubgraph({
      NODE_ENV: 'production',
      // Open on purpose: a bench (or test) is the only caller.
      CALLER_AUTH: 'none',
      LOG_LEVEL: 'warn',
      ...demoUpstreamEnv(emulator.url),
    });
    try {
      process.stdout.write(`${analyticsReport(await benchAnalytics(emulator, subgraph)).join('\n')}\n`);
    } finally {
      await subgraph.stop();
    }
  } finally {
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
