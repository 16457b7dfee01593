import type { DestinationStream, LoggerOptions } from 'pino';
import { redactCredentials } from './redactCredentials';

const REDACTED = '[redacted]';

/**
 * Secret-bearing keys at the depths where they can plausibly appear: a
 * top-level field, one nested object (e.g. `{ body: { password } }`) and HTTP
 * header bags. `Secret` already serializes as `[redacted]`; these paths catch
 * plain strings that slipped through, which no held secret would match.
 */
const SECRET_KEY_PATHS = [
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

/** What pino needs to redact a logger's output: censor values by key, then scrub each finished line. */
export interface LogRedaction {
  redact: NonNullable<LoggerOptions['redact']>;
  destination: DestinationStream;
}

/**
 * The logs' redaction, in two steps that do different work (neither repeats
 * the other): key paths censor values by name while pino serializes; every
 * finished line (any level, message, fields, error stacks alike) then passes
 * the redactor that knows each held secret in all its forms. On the
 * serialized line, a secret that was raw in memory appears JSON-escaped, one
 * that was already escaped appears escaped twice: both are forms it knows.
 */
export function logRedaction(destination: DestinationStream): LogRedaction {
  return {
    redact: { paths: SECRET_KEY_PATHS, censor: REDACTED },
    destination: { write: (line: string) => destination.write(redactCredentials(line)) },
  };
}

/** A start-up failure written to stderr before (or instead of) the logger: the same text redaction as a log line. */
export function redactStartupFailure(text: string): string {
  return redactCredentials(text);
}
