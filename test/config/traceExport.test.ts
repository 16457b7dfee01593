import { traceExportFromEnv } from '../../src/config/tracing';

describe('traceExportFromEnv (the exporters OTEL_* selects, with the Node SDK rules)', () => {
  it('defaults to OTLP over http/protobuf and names the service', () => {
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      exporters: ['otlp'],
      otlpProtocol: 'http/protobuf',
      serviceName: 'news-analytics-subgraph',
    });
  });

  it('takes a list, skips unknown names and duplicates', () => {
    expect(traceExportFromEnv({ OTEL_TRACES_EXPORTER: ' console, zipkin,jaeger,console' }).exporters).toEqual(['console', 'zipkin']);
  });

  it('selects nothing for `none` first, and OTLP for `none` among others', () => {
    expect(traceExportFromEnv({ OTEL_TRACES_EXPORTER: 'none' }).exporters).toEqual([]);
    expect(traceExportFromEnv({ OTEL_TRACES_EXPORTER: 'console,none' }).exporters).toEqual(['otlp']);
  });

  it('reads the traces protocol before the general one, and falls back to http/protobuf', () => {
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).otlpProtocol).toBe('grpc');
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).otlpProtocol).toBe(
      'http/json',
    );
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' }).otlpProtocol).toBe('http/protobuf');
  });

  it('leaves the service name to OTEL_SERVICE_NAME when it is set', () => {
    expect(traceExportFromEnv({ OTEL_SERVICE_NAME: 'analytics' }).serviceName).toBeUndefined();
  });
});
