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

export type TraceExporterName = 'otlp' | 'zipkin' | 'console';
export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** Which exporters the OTEL_* variables select, with the rules of OpenTelemetry's Node SDK. */
export interface TraceExport {
  exporters: TraceExporterName[];
  otlpProtocol: OtlpProtocol;
  /** Ours when OTEL_SERVICE_NAME is unset; OTEL_SERVICE_NAME itself is read by the resource detector. */
  serviceName: string | undefined;
}

const DEFAULT_SERVICE_NAME = 'news-analytics-subgraph';
const EXPORTER_NAMES: readonly string[] = ['otlp', 'zipkin', 'console'] satisfies TraceExporterName[];
const OTLP_PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json', 'grpc'] satisfies OtlpProtocol[];

/**
 * OTEL_TRACES_EXPORTER (a list; unset or empty means `otlp`, `none` first
 * means none, `none` among others means `otlp`, unknown names are skipped)
 * and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL
 * (default and fallback `http/protobuf`), as the SDK's own
 * getSpanProcessorsFromEnv reads them: the exporters' endpoints, headers and
 * timeouts are still read by the exporters themselves.
 */
export function traceExportFromEnv(env: NodeJS.ProcessEnv): TraceExport {
  const listed = [
    ...new Set(
      (env.OTEL_TRACES_EXPORTER ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '' && name !== 'null'),
    ),
  ];
  let names: string[];
  if (listed[0] === 'none') names = [];
  else if (listed.length === 0 || listed.includes('none')) names = ['otlp'];
  else names = listed;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || '').trim();
  return {
    exporters: names.filter((name): name is TraceExporterName => EXPORTER_NAMES.includes(name)),
    otlpProtocol: OTLP_PROTOCOLS.includes(protocol) ? (protocol as OtlpProtocol) : 'http/protobuf',
    serviceName: env.OTEL_SERVICE_NAME === undefined ? DEFAULT_SERVICE_NAME : undefined,
  };
}
