/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // Integration tests start real HTTP servers; keep workers bounded on a 2-core machine.
  maxWorkers: process.env.CI ? 2 : '50%',
  testTimeout: 30000,
};
