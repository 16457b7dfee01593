// Prints `jest: N passed, M failed` from jest's --json output. A missing file
// means jest never ran (install, codegen or type-check failed): that is a failure.
const fs = require('node:fs');

const file = process.argv[2];
let results;
try {
  results = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  console.log('jest: 0 passed, 1 failed');
  process.exit(1);
}
const passed = results.numPassedTests;
// Suites that fail to load have no failing tests of their own: count them too.
const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
console.log(`jest: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.success ? 0 : 1);
