import { busiestReaders } from './demoReaders';
import { paramsPool, startBenchEmulator } from './emulatorBench';
import { benchOps, opsReport } from './opsBench';

/*
 * `npm run bench:ops`: only the metrics/tracing overhead comparison of
 * `npm run bench` (same emulator, same load), for a quick re-measurement.
 */
async function main(): Promise<void> {
  const emulator = await startBenchEmulator(42);
  try {
    const pool = await paramsPool(emulator, busiestReaders(42, 1, 40));
    const figures = await benchOps(emulator, pool, { memory: false });
    process.stdout.write(`${opsReport(figures).join('\n')}\n`);
  } finally {
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
