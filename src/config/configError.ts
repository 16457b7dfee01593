import { withDotEnvOrigins } from './dotenv';

/**
 * Every problem of the environment at once, so one start-up failure lists them
 * all (never a secret's value); a variable set by `.env` is named with its line.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${withDotEnvOrigins(problem)}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
