import { destination as fileDestination, pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config';
import { redactCredentials } from '../redaction/redactCredentials';

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

/**
 * Key paths catch secrets by name; every finished line (any level, message,
 * fields, error stacks alike) then passes the redactor that knows each held
 * secret in all its forms. On the serialized line, a secret that was raw in
 * memory appears JSON-escaped, one that was already escaped appears escaped
 * twice: both are forms the redactor knows.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination: DestinationStream = stdout()): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: REDACTED } };
  return pino(options, redactingDestination(destination));
}

function redactingDestination(destination: DestinationStream): DestinationStream {
  return { write: (line: string) => destination.write(redactCredentials(line)) };
}

/** What pino uses when given no destination: asynchronous stdout, flushed on exit. */
function stdout(): DestinationStream {
  return fileDestination({ dest: process.stdout.fd || 1, sync: false });
}
