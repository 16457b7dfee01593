/**
 * Held secrets (the password, the `email:password` pair, the bearer token)
 * never leave the process in any form: raw, JSON-escaped, URL-encoded,
 * base64 (of the pair too, as in a Basic header). Each form is fed through
 * each exit that reaches a client or an operator: GraphQL errors over HTTP
 * (formatError), logs at every level, OTel spans (attributes, events,
 * status), and the metrics scrape.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import * as tracing from '@opentelemetry/sdk-trace-base';
import { GraphQLError } from 'graphql';
import { Counter, Registry } from 'prom-client';
import { createLogger } from '../../src/observability/logger';
import { metricsHandler } from '../../src/observability/metrics/handler';
import { HeldSecrets, heldSecrets } from '../../src/redaction/secret';
import { redactingSpanProcessor } from '../../src/observability/tracing/redactingSpanProcessor';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender } from '../support/subgraph';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

const EMAIL = 'api@news.example';
const PASSWORD = 'pa"ss\\wörd/+ x&y=1';
/** Not a JWT: only the held set can know it is a token. */
const TOKEN = 'opaque0token0c29tZXRoaW5n0xyz';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/** How each secret may appear in a text that reached us (an upstream echo, an exception message). */
const FORMS: Record<string, string> = {
  raw: PASSWORD,
  'JSON-escaped': jsonEscaped(PASSWORD),
  'URL-encoded': encodeURIComponent(PASSWORD),
  'form-encoded': new URLSearchParams({ p: PASSWORD }).toString().slice(2),
  base64: base64(PASSWORD),
  'base64 of email:password in a Basic header': `Basic ${base64(`${EMAIL}:${PASSWORD}`)}`,
  'token raw': TOKEN,
  'token JSON-escaped in a body': JSON.stringify({ access_token: TOKEN }),
};

/** What must never be found in any output: each form, and each form as JSON escapes it again. */
const LEAKS = [
  PASSWORD,
  jsonEscaped(PASSWORD),
  jsonEscaped(jsonEscaped(PASSWORD)),
  encodeURIComponent(PASSWORD),
  base64(PASSWORD).replace(/=+$/, ''),
  base64(`${EMAIL}:${PASSWORD}`).replace(/=+$/, ''),
  TOKEN,
];

function leaksIn(output: string): string[] {
  return LEAKS.filter((leak) => output.includes(leak));
}

beforeAll(() => {
  heldSecrets.holdCredentials(EMAIL, PASSWORD);
  heldSecrets.hold(TOKEN);
});
afterAll(() => {
  heldSecrets.forget(PASSWORD);
  heldSecrets.forget(`${EMAIL}:${PASSWORD}`);
  heldSecrets.forget(TOKEN);
});

function captureLogs(): { output: () => string; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { output: () => lines.join(''), stream };
}

describe.each(Object.entries(FORMS))('a secret %s', (_name, form) => {
  it('leaves no log line, at any level, in the message, a field or an error', () => {
    const { output, stream } = captureLogs();
    const logger = createLogger({ logLevel: 'trace' }, stream);
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) {
      logger[level]({ upstreamSaid: `echo: ${form}`, err: new Error(`sign-in failed: ${form}`) }, `message with ${form}`);
    }
    expect(
      output()
        .split('\n')
        .filter((line) => line !== ''),
    ).toHaveLength(6);
    expect(output()).toContain('[redacted]');
    expect(leaksIn(output())).toEqual([]);
  });

  it('leaves no GraphQL error over HTTP (message and extensions), nor the operation log', async () => {
    const { output, stream } = captureLogs();
    const recommender = fakeRecommender(async (params) => {
      if (params.clientId === 'ext') throw new GraphQLError(`refused ${form}`, { extensions: { code: 'BAD_USER_INPUT', said: form } });
      throw new Error(`upstream echoed: ${form}`);
    });
    const server = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS }), {
      recommender,
      dashboard: fakeReporting(),
      logger: createLogger({ logLevel: 'debug' }, stream),
    });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ a: recommendations(experienceId: "IL_1", domain: "d.example") { url }
                   b: recommendations(experienceId: "IL_1", domain: "d.example", clientId: "ext") { url } }`,
        }),
      });
      const text = await response.text();
      const errors = (JSON.parse(text) as { errors: Array<{ message: string }> }).errors;
      expect(errors.map((error) => error.message)).toEqual([
        expect.stringMatching(/^upstream echoed: .*\[redacted\]/) as unknown,
        expect.stringMatching(/^refused .*\[redacted\]/) as unknown,
      ]);
      expect(leaksIn(text)).toEqual([]);
      expect(leaksIn(output())).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('leaves no span: name, attributes, events, recorded exception, status', async () => {
    const exporter = new tracing.InMemorySpanExporter();
    const provider = new tracing.BasicTracerProvider({
      spanProcessors: [redactingSpanProcessor(), new tracing.SimpleSpanProcessor(exporter)],
    });
    const span = provider.getTracer('test').startSpan(`POST ${form}`);
    span.setAttribute('upstream.message', form);
    span.setAttribute('list', ['ok', form]);
    span.addEvent(`event ${form}`, { detail: form });
    span.recordException(new Error(`sign-in failed: ${form}`));
    span.setStatus({ code: 2, message: form });
    span.end();
    await provider.forceFlush();
    const [finished] = exporter.getFinishedSpans();
    const exported = JSON.stringify({
      name: finished.name,
      attributes: finished.attributes,
      events: finished.events,
      status: finished.status,
    });
    expect(exported).toContain('[redacted]');
    expect(leaksIn(exported)).toEqual([]);
    await provider.shutdown();
  });

  it('leaves no metrics label in the scrape', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'test_upstream_errors_total', help: 'h', labelNames: ['message'], registers: [registry] });
    counter.inc({ message: `said ${form}` });
    const server: Server = createServer(metricsHandler(registry));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
      expect(text).toContain('test_upstream_errors_total{message="said');
      expect(leaksIn(text)).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('HeldSecrets', () => {
  it('redacts a held value in a longer base64 text at any alignment, and stops once forgotten', () => {
    const secrets = new HeldSecrets();
    secrets.hold('token-value-0123');
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const embedded = base64(`${prefix}Bearer token-value-0123 and more`);
      expect(secrets.redact(embedded)).toContain('[redacted]');
    }
    secrets.hold('token-value-0123');
    secrets.forget('token-value-0123');
    expect(secrets.redact('x token-value-0123 y')).toBe('x [redacted] y');
    secrets.forget('token-value-0123');
    expect(secrets.redact('x token-value-0123 y')).toBe('x token-value-0123 y');
  });
});
