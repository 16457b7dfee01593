import { EnvReader } from './env';

/** On when the standard OTEL_* variables name an exporter; the SDK reads them itself. */
export interface TracingConfig {
  enabled: boolean;
}

const OTLP_ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;

/**
 * The OpenTelemetry SDK reads the OTEL_* variables itself; here we only
 * decide whether to start it (an endpoint or an exporter is named, and the
 * SDK is not disabled) and check the endpoints are URLs, so a typo fails at
 * start-up instead of silently losing every span.
 */
export function readTracing(reader: EnvReader, env: NodeJS.ProcessEnv): TracingConfig {
  for (const name of OTLP_ENDPOINTS) reader.httpUrl(name);
  if (env.OTEL_SDK_DISABLED === 'true') return { enabled: false };
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter === 'none') return { enabled: false };
  return { enabled: OTLP_ENDPOINTS.some((name) => reader.isSet(name)) || (exporter !== undefined && exporter !== '') };
}

/**
 * For src/observability/tracing/register.ts, which must decide before anything else is
 * imported: only the tracing variables, off when they are unusable (the full
 * configuration, read later, reports the problem with every other one).
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const reader = new EnvReader(env);
  const tracing = readTracing(reader, env);
  return reader.problems.length === 0 && tracing.enabled;
}
