/**
 * `npm run doctor [-- --no-spend]`: checks the configuration `npm start`
 * would use, one line per check; exit 0 only when every check that ran passed.
 */
// First: the `.env` that `npm start` reads, so the doctor checks the same configuration.
import '../config/dotenvAtStart';
import { parseArgs } from 'node:util';
import { runDoctor } from './runDoctor';

const USAGE =
  'usage: npm run doctor [-- --no-spend]\n  --no-spend  skip the dashboard query (the one check that spends a slot of the query budget)\n';

async function main(): Promise<number> {
  let spend: boolean;
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), options: { 'no-spend': { type: 'boolean' }, help: { type: 'boolean' } } });
    if (values.help === true) {
      process.stdout.write(USAGE);
      return 0;
    }
    spend = values['no-spend'] !== true;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const report = await runDoctor({
    env: process.env,
    spend,
    write: (line) => process.stdout.write(`${line}\n`),
    nowMs: Date.now,
  });
  return report.exitCode;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`doctor failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
