import { OTLPTraceExporter as OtlpGrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { OtlpProtocol, TraceExport } from '../../config/tracing';

const OTLP_EXPORTERS: Record<OtlpProtocol, () => SpanExporter> = {
  'http/protobuf': () => new OtlpProtobufExporter(),
  'http/json': () => new OtlpJsonExporter(),
  grpc: () => new OtlpGrpcExporter(),
};

/**
 * The span processors the OTEL_* variables select, as the Node SDK builds
 * them: a batch processor per exporter (it reads OTEL_BSP_*), a simple one for
 * the console. The exporters read their endpoint, headers and timeout
 * variables themselves. Only these exporter packages are installed, not the
 * SDK's metrics and logs exporters.
 */
export function spanProcessorsFor(selected: TraceExport): SpanProcessor[] {
  return selected.exporters.map((name) => {
    if (name === 'console') return new SimpleSpanProcessor(new ConsoleSpanExporter());
    return new BatchSpanProcessor(name === 'zipkin' ? new ZipkinExporter() : OTLP_EXPORTERS[selected.otlpProtocol]());
  });
}
