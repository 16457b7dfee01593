/**
 * `npm run test:soak`: runs the timing-sensitive suites again and again, so a
 * flaky test shows itself here instead of in a landing's `.ci/run`. Each
 * round is one jest run over the selected suites; after each round it prints
 * every failed test, and at the end a tally per suite (test file): how many
 * rounds it failed in. Exits 1 when any round had a failure. Not part of
 * `.ci/run`: it takes long by design (run it on a busy machine, which is the
 * load that finds races).
 *
 * Usage: npm run test:soak [-- <group or jest path pattern>...]
 *   SOAK_ROUNDS=10 (default)   rounds to run
 *   no argument                every group of SOAK_GROUPS below
 *   a group's name             that group's patterns (e.g. `subscriptions redis`)
 *   anything else              passed to jest as a path pattern (e.g. `test/auth/renewalRace.test.ts`)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JEST = createRequire(import.meta.url).resolve('jest/bin/jest');
/** jest exits right after writing its results; still running this long after, something the tests left open holds it. */
const EXIT_GRACE_MS = 60_000;

/** The timing-sensitive suites, by group: jest path patterns (regular expressions over the test file's path). */
const SOAK_GROUPS = {
  subscriptions: ['test/subscriptions/'],
  // Every suite that starts a redis-server (restarts, failovers, reconnects): the Redis room's, and the others named after it.
  redis: ['test/redis/', 'test/.*[Rr]edis[^/]*\\.test\\.ts$'],
  replicas: ['test/upstream/replica', 'test/reporting/[^/]*[Rr]eplicas', 'test/security/fairShare'],
  processes: ['test/web/[^/]*Process'],
  auth: ['test/auth/'],
};

const rounds = readRounds(process.env.SOAK_ROUNDS);
const patterns = selectedPatterns(process.argv.slice(2));
// One directory per soak (jest's JSON results of each round), so two soaks never share one.
const outputDir = path.join(root, 'test-output', 'soak', new Date().toISOString().replace(/[:.]/g, '-'));
mkdirSync(outputDir, { recursive: true });

console.log(`soak: ${rounds} round(s) of ${patterns.join(' ')} (jest results in ${path.relative(root, outputDir)})`);
/** Per suite (test file, relative path): rounds run, rounds failed. */
const tally = new Map();
let failedRounds = 0;
const started = Date.now();
for (let round = 1; round <= rounds; round += 1) {
  const roundStarted = Date.now();
  const results = await runRound(round);
  const failures = [];
  for (const suite of results.suites) {
    const entry = tally.get(suite.file) ?? { runs: 0, failed: 0 };
    entry.runs += 1;
    if (suite.failed.length > 0) entry.failed += 1;
    tally.set(suite.file, entry);
    for (const test of suite.failed) failures.push(`  FAIL ${suite.file} › ${test}`);
  }
  if (results.problem !== undefined) failures.push(`  FAIL ${results.problem}`);
  if (failures.length > 0) failedRounds += 1;
  const seconds = Math.round((Date.now() - roundStarted) / 1000);
  console.log(
    `round ${round}/${rounds}: ${results.suites.length} suites, ${results.tests} tests, ${failures.length} failure(s), ${seconds} s, load ${loadAverage()}`,
  );
  for (const line of failures) console.log(line);
}

console.log(
  `\nsoak tally after ${rounds} round(s), ${Math.round((Date.now() - started) / 60_000)} min (suite: rounds failed / rounds run):`,
);
for (const [file, { runs, failed }] of [...tally].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`  ${failed > 0 ? 'FLAKY' : 'ok   '} ${file}: ${failed}/${runs}`);
}
console.log(failedRounds === 0 ? `soak: every round passed` : `soak: ${failedRounds} of ${rounds} round(s) failed`);
process.exit(failedRounds === 0 ? 0 : 1);

function readRounds(value) {
  if (value === undefined || value === '') return 10;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    console.error(`SOAK_ROUNDS must be a whole number of at least 1, got "${value}"`);
    process.exit(2);
  }
  return parsed;
}

function selectedPatterns(args) {
  if (args.length === 0) return Object.values(SOAK_GROUPS).flat();
  return args.flatMap((arg) => SOAK_GROUPS[arg] ?? [arg]);
}

/** One jest run over the patterns: each suite's failed tests, from jest's JSON results. */
async function runRound(round) {
  const outputFile = path.join(outputDir, `round-${round}.json`);
  const run = await runJest(outputFile);
  let report;
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8'));
  } catch {
    const tail = run.stderr.trim().split('\n').slice(-15).join('\n');
    return { suites: [], tests: 0, problem: `jest wrote no results (exit ${run.status ?? run.signal}):\n${tail}` };
  }
  const suites = report.testResults.map((suite) => ({
    file: path.relative(root, suite.name),
    failed: [
      ...suite.assertionResults.filter((test) => test.status === 'failed').map((test) => test.fullName),
      // A suite that failed outside any test (a hook, a compile error) has no failed test to name.
      ...(suite.status === 'failed' && !suite.assertionResults.some((test) => test.status === 'failed')
        ? [`(suite) ${firstLine(suite.message)}`]
        : []),
    ],
  }));
  const problems = [];
  if (suites.length === 0) problems.push(`jest ran no suite for ${patterns.join(' ')}`);
  if (run.hung)
    problems.push(`jest did not exit ${EXIT_GRACE_MS / 1000} s after its results: a process or handle the tests left open (killed)`);
  else if (run.status !== 0 && report.numFailedTests === 0 && report.numFailedTestSuites === 0)
    problems.push(`jest exited ${run.status ?? run.signal} with every test passed`);
  return { suites, tests: report.numTotalTests, problem: problems.length > 0 ? problems.join('; ') : undefined };
}

/** jest in its own process group, so a run held open after its results can be ended with whatever it started. */
function runJest(outputFile) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [JEST, '--json', `--outputFile=${outputFile}`, ...patterns], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk.toString('utf8')).slice(-200_000)));
    let hung = false;
    const watch = setInterval(() => {
      if (hung || !existsSync(outputFile) || Date.now() - statSync(outputFile).mtimeMs < EXIT_GRACE_MS) return;
      hung = true;
      process.kill(-child.pid, 'SIGKILL');
    }, 5_000);
    child.on('exit', (status, signal) => {
      clearInterval(watch);
      resolve({ status, signal, stderr, hung });
    });
  });
}

function firstLine(message) {
  return (
    String(message ?? '')
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '' && !line.startsWith('●')) ?? 'failed'
  );
}

function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
