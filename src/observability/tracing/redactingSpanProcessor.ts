import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactSpan, type MutableSpan } from '../../redaction';

/**
 * Applies the spans' redaction (src/redaction/spans.ts) while a span can
 * still be changed: `onEnding`, before any exporter's `onEnd`.
 */
export function redactingSpanProcessor(): SpanProcessor {
  return {
    onStart: () => undefined,
    onEnding: (span) => redactSpan(span as unknown as MutableSpan),
    onEnd: () => undefined,
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}
