import { destination as fileDestination, pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config';
import { logRedaction } from '../redaction';

export type { Logger };

/** A pino logger whose every line leaves through the logs' redaction (src/redaction/logs.ts). */
export function createLogger(config: Pick<Config, 'logLevel'>, destination: DestinationStream = stdout()): Logger {
  const redaction = logRedaction(destination);
  return pino({ level: config.logLevel, redact: redaction.redact }, redaction.destination);
}

/** What pino uses when given no destination: asynchronous stdout, flushed on exit. */
function stdout(): DestinationStream {
  return fileDestination({ dest: process.stdout.fd || 1, sync: false });
}
