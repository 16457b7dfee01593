/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The image test builds and runs Docker images: `npm run test:docker` (jest.docker.config.js), called by .ci/run.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/docker/'],
  // tsconfig's isolatedModules makes ts-jest transpile only: `npm test`
  // type-checks the whole project once with tsc before jest runs.
  transform: { '^.+\\.ts$': 'ts-jest' },
  // Integration tests start real HTTP servers; keep workers bounded on a 2-core machine.
  maxWorkers: process.env.CI ? 2 : '50%',
  testTimeout: 30000,
  // Prints the one "how to install redis-server" line when the Redis suites are skipped.
  globalSetup: '<rootDir>/test/support/redisGlobalSetup.ts',
};
