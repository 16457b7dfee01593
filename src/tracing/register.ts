/**
 * Imported first by src/index.ts: the instrumentations patch `http` and
 * `graphql` as they are loaded, so tracing must start before anything else
 * imports them. Off unless the OTEL_* variables name an exporter.
 */
import { loadConfig } from '../config';
import { startTracing, type RunningTracing } from './tracing';

function startIfConfigured(): RunningTracing | undefined {
  try {
    return loadConfig(process.env).tracing.enabled ? startTracing() : undefined;
  } catch {
    // A configuration error is reported (with every other problem) by src/index.ts.
    return undefined;
  }
}

export const runningTracing = startIfConfigured();
