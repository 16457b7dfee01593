import { benchSupergraphTraffic, supergraphReport } from './supergraphTraffic';

/*
 * `npm run bench:supergraph`: only the "supergraph traffic" scenario.
 * SUPERGRAPH_BENCH_SECONDS sets each phase's length (default 60).
 */
export function supergraphSeconds(): number {
  const seconds = Number(process.env.SUPERGRAPH_BENCH_SECONDS ?? '60');
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error('SUPERGRAPH_BENCH_SECONDS must be a number > 0');
  return seconds;
}

if (require.main === module) {
  const seconds = supergraphSeconds();
  benchSupergraphTraffic(seconds)
    .then((figures) => process.stdout.write(`${supergraphReport(seconds, figures)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
