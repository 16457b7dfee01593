import { benchSupergraphTraffic, supergraphReport } from './supergraphTraffic';

/*
 * `npm run bench:supergraph`: only the "supergraph traffic" scenario.
 * SUPERGRAPH_BENCH_SECONDS sets each phase's length (default 60),
 * SUPERGRAPH_BENCH_REPETITIONS the interleaved runs per configuration (default 3).
 */
export function supergraphSeconds(): number {
  const seconds = Number(process.env.SUPERGRAPH_BENCH_SECONDS ?? '60');
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error('SUPERGRAPH_BENCH_SECONDS must be a number > 0');
  return seconds;
}

export function supergraphRepetitions(): number {
  const repetitions = Number(process.env.SUPERGRAPH_BENCH_REPETITIONS ?? '3');
  if (!Number.isInteger(repetitions) || repetitions < 1) throw new Error('SUPERGRAPH_BENCH_REPETITIONS must be an integer >= 1');
  return repetitions;
}

if (require.main === module) {
  const seconds = supergraphSeconds();
  const repetitions = supergraphRepetitions();
  benchSupergraphTraffic(seconds, repetitions)
    .then((figures) => process.stdout.write(`${supergraphReport(seconds, repetitions, figures)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
