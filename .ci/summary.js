// Prints `jest: N passed, M failed` from jest's --json output: the last line,
// which CI reads. Each argument is a results file, optionally `label:file` for
// a further run (the suite under another Node version, the Docker image test):
// such runs get a line of their own first, and the last line counts every run together. A missing
// file means that jest never ran (install, codegen or type-check failed): a failure.
const fs = require('node:fs');

function summarize(file) {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return { passed: 0, failed: 1, success: false };
  }
  // Suites that fail to load have no failing tests of their own: count them too.
  const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
  return { passed: results.numPassedTests, failed, success: failed === 0 && results.success };
}

let passed = 0;
let failed = 0;
let success = true;
for (const arg of process.argv.slice(2)) {
  const separator = arg.indexOf(':');
  const [label, file] = separator === -1 ? [undefined, arg] : [arg.slice(0, separator), arg.slice(separator + 1)];
  const run = summarize(file);
  if (label !== undefined) console.log(`jest (${label}): ${run.passed} passed, ${run.failed} failed`);
  passed += run.passed;
  failed += run.failed;
  success = success && run.success;
}
console.log(`jest: ${passed} passed, ${failed} failed`);
process.exit(success ? 0 : 1);
