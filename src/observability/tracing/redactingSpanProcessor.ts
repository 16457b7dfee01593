import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactCredentials } from '../../redaction/redactCredentials';

/**
 * Redacts held secrets (src/redaction/secret.ts) from a span while it can still be
 * changed (`onEnding`, before any exporter's `onEnd`): its name, attributes,
 * status message, and its events' names and attributes (recorded exceptions
 * carry the error message and stack).
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

/** What onEnding may change on the SDK's span: its own setters, and the plain objects of its events and status. */
interface MutableSpan {
  name: string;
  attributes: Attributes;
  events: Array<{ name: string; attributes?: Attributes }>;
  status: { code: number; message?: string };
  setAttribute(key: string, value: AttributeValue): unknown;
  updateName(name: string): unknown;
}

function redactSpan(span: MutableSpan): void {
  const name = redactCredentials(span.name);
  if (name !== span.name) span.updateName(name);
  for (const [key, value] of Object.entries(span.attributes)) {
    const clean = redactAttribute(value);
    if (clean !== value && clean !== undefined) span.setAttribute(key, clean);
  }
  if (span.status.message !== undefined) span.status.message = redactCredentials(span.status.message);
  for (const event of span.events) {
    event.name = redactCredentials(event.name);
    if (event.attributes !== undefined) event.attributes = redactAttributes(event.attributes);
  }
}

function redactAttributes(attributes: Attributes): Attributes {
  const clean: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) clean[key] = redactAttribute(value);
  return clean;
}

function redactAttribute(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') {
    const clean = redactCredentials(value);
    return clean === value ? value : clean;
  }
  if (Array.isArray(value) && value.some((item) => typeof item === 'string')) {
    return (value as Array<string | null | undefined>).map((item) =>
      typeof item === 'string' ? redactCredentials(item) : item,
    ) as AttributeValue;
  }
  return value;
}
