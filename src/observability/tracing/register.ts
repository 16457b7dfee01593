/**
 * Imported first by src/index.ts: the instrumentations patch `http` and
 * `graphql` as they are loaded, so tracing must start before anything else
 * imports them. Off unless the OTEL_* variables name an exporter; only those
 * are read here (the whole configuration is read, and any problem reported,
 * by src/index.ts).
 */
import { tracingWanted } from '../../config/tracing';
import { startTracing, type RunningTracing } from './tracing';

export const runningTracing: RunningTracing | undefined = tracingWanted(process.env) ? startTracing() : undefined;
