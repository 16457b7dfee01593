import type { IncomingMessage } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { traceExportFromEnv } from '../../config/tracing';
import { spanProcessorsFor } from './exporters';
import { redactingSpanProcessor } from './redactingSpanProcessor';

export interface TracingOptions {
  /** Replaces the exporter the OTEL_* variables select (tests pass an in-memory one). */
  spanProcessors?: SpanProcessor[];
}

export interface RunningTracing {
  /** Flushes buffered spans, then stops. */
  shutdown(): Promise<void>;
}

/** Paths whose spans only add noise: probes and scrapes run every few seconds. */
const UNTRACED_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * OpenTelemetry's Node tracer provider, set up as its Node SDK would for
 * traces (the SDK itself also brings every metrics and logs exporter, which
 * this service does not use), with three instrumentations:
 * - http: the server span of each /graphql request, continuing the router's
 *   `traceparent` (W3C propagation is the provider's default);
 * - graphql: parse/validate/execute spans and one span per resolver that
 *   does work (trivial field reads are skipped), so the resolvers that call
 *   upstream show up;
 * - undici: a client span per upstream HTTP call, injecting `traceparent`.
 * The exporter, endpoint, sampler and resource come from the standard OTEL_*
 * variables. Nothing here records headers, bodies or variable values, and
 * upstream URLs lose their query string (reader ids), so neither tokens,
 * passwords nor caller data reach a span. Even so, a first processor redacts
 * every held secret from each span's attributes, events and status before any
 * exporter sees it (an exception message may quote an upstream's answer).
 */
export function startTracing(options: TracingOptions = {}): RunningTracing {
  const selected = traceExportFromEnv(process.env);
  const detected = defaultResource().merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
  const resource =
    selected.serviceName === undefined ? detected : detected.merge(resourceFromAttributes({ 'service.name': selected.serviceName }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: withRedaction(options.spanProcessors ?? spanProcessorsFor(selected)),
  });
  // The global provider, AsyncLocalStorage context and W3C trace-context and baggage propagation.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(pathOf(request)),
        // Upstream calls go through undici; a node:http client span would be a duplicate or a stranger's call.
        ignoreOutgoingRequestHook: () => true,
      }),
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true, allowValues: false }),
      new UndiciInstrumentation({ requestHook: (span, request) => withoutQueryString(span, request) }),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}

/** No exporter (OTEL_TRACES_EXPORTER=none): no processor at all, so no tracer provider records spans for nothing. */
function withRedaction(processors: SpanProcessor[]): SpanProcessor[] {
  return processors.length === 0 ? [] : [redactingSpanProcessor(), ...processors];
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://subgraph').pathname;
}

/** render.json's query string names the reader (client_id) and the page; the span keeps origin and path. */
function withoutQueryString(span: Span, request: { origin: string; path: string }): void {
  const path = request.path.split('?')[0];
  span.setAttribute('url.full', `${request.origin}${path}`);
  span.setAttribute('url.query', '');
}
