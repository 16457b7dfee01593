/**
 * Redaction: one module, one entry point per output, each applied once at
 * that output's exit. All of them remove what `redactCredentials` removes
 * (every held secret in each of its forms, bearer credentials, JWT-shaped
 * text); the doctor redacts its own run's secrets.
 *
 * | output             | entry point           | applied in                                     |
 * |--------------------|-----------------------|------------------------------------------------|
 * | GraphQL errors     | redactErrorResponse   | src/graphql/errors/formatError.ts              |
 * | logs               | logRedaction          | src/observability/logger.ts                    |
 * | OTel spans         | redactSpan            | src/observability/tracing/redactingSpanProcessor.ts |
 * | `/metrics` scrape  | redactMetricsScrape   | src/observability/metrics/handler.ts           |
 * | the doctor's lines | doctorRedaction       | src/doctor/runDoctor.ts                        |
 * | start-up failure   | redactStartupFailure  | src/index.ts                                   |
 *
 * `Secret` (a value that prints as `[redacted]`) and `heldSecrets` (what the
 * process holds) live in ./secret.ts; ./redactCredentials.ts is the text
 * redactor the entry points share (and UpstreamError applies to upstream
 * words before it cuts them).
 */
export { redactErrorResponse } from './errorResponse';
export { logRedaction, redactStartupFailure } from './logs';
export { redactSpan, type MutableSpan } from './spans';
export { redactMetricsScrape } from './metricsScrape';
export { doctorRedaction } from './doctorOutput';
