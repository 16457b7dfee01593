import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

const REDACTED = '[redacted]';

/**
 * Secret-bearing keys at the depths where they can plausibly appear: a
 * top-level field, one nested object (e.g. `{ body: { password } }`) and HTTP
 * header bags. `Secret` already serializes as `[redacted]`; these paths catch
 * plain strings that slipped through.
 */
const REDACT_PATHS = [
  'password',
  'token',
  'authorization',
  '*.password',
  '*.token',
  '*.authorization',
  '*.*.password',
  '*.*.token',
  '*.*.authorization',
  'headers.cookie',
  '*.headers.cookie',
  'REPORTING_PASSWORD',
  '*.REPORTING_PASSWORD',
];

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: REDACTED } };
  return destination === undefined ? pino(options) : pino(options, destination);
}
