/**
 * `npm run test:docker`: builds the Dockerfile and runs the image (test/docker/). Its own jest
 * configuration, outside `npm test`: it needs root, a Docker engine (installed and started when
 * missing) and minutes, and .ci/run runs it after the jest runs.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/docker'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  maxWorkers: 1,
  testTimeout: 120_000,
};
