/**
 * Tracing in a real subgraph process (instrumentations patch modules as they
 * load, which jest's module registry would hide), exporting OTLP/HTTP JSON
 * to a local receiver, against the emulator behind a proxy that records the
 * `traceparent` each upstream request carried.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { attribute, startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from '../support/otlpReceiver';
import { startRecordingProxy, type RecordingProxy } from '../support/recordingProxy';
import { startSmallEmulator } from '../support/subgraphHttp';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Generous: tsx and the SDK load slowly on a busy 2-core CI machine; the test ends as soon as the line arrives. */
const STARTUP_TIMEOUT_MS = 90_000;
const SPANS_TIMEOUT_MS = 30_000;
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const RENDER_PATH = '/recommenderexperience/render.json';

let emulator: RunningEmulator;
let proxy: RecordingProxy;
let receiver: OtlpReceiver;
let child: ChildProcess | undefined;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  proxy = await startRecordingProxy(emulator.url);
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await proxy?.close();
  await emulator?.close();
});

/** Starts `src/index.ts` and resolves with its GraphQL URL from the "subgraph listening" line. */
function startTracedSubgraph(): Promise<{ url: string; exited: Promise<number | null>; output: () => string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    NODE_ENV: 'production',
    // Open on purpose: a bench (or test) is the only caller.
    CALLER_AUTH: 'none',
    REPORTING_BASE_URL: proxy.url,
    RECOMMENDER_URL: proxy.url,
    REPORTING_EMAIL: DEMO_API_USER.email,
    REPORTING_PASSWORD: DEMO_API_USER.password,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'subgraph-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
  const started = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child = started;
  let output = '';
  started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "subgraph listening" line:\n${output}`)), STARTUP_TIMEOUT_MS);
    started.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /"url":"(http:\/\/localhost:\d+\/graphql)"[^\n]*"msg":"subgraph listening"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1].replace('localhost', '127.0.0.1'));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
  });
  return url.then((graphqlUrl) => ({ url: graphqlUrl, exited, output: () => output }));
}

describe('OpenTelemetry tracing', () => {
  it('continues the router trace, adds a client span per upstream call and propagates traceparent to the upstream', async () => {
    const subgraph = await startTracedSubgraph();
    const traceId = randomBytes(16).toString('hex');
    const routerSpanId = randomBytes(8).toString('hex');
    const experience = emulator.demo.experiences.find((candidate) => candidate.rankingProfile === 'mostRead');
    const marker = 'reader-trace-marker-42';

    const response = await fetch(subgraph.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${routerSpanId}-01` },
      body: JSON.stringify({
        query:
          'query Front($id: ID!, $clientId: ID) { recommendations(experienceId: $id, domain: "dailyglobe.example", clientId: $clientId) { url } }',
        variables: { id: experience?.id, clientId: marker },
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();

    const inTrace = (spans: OtlpSpan[]) => spans.filter((span) => span.traceId === traceId);
    const isRenderClient = (span: OtlpSpan) => span.kind === SPAN_KIND_CLIENT && String(attribute(span, 'url.full')).endsWith(RENDER_PATH);
    await receiver.waitFor((spans) => inTrace(spans).some(isRenderClient), SPANS_TIMEOUT_MS);
    const spans = inTrace(receiver.spans);

    const serverSpan = spans.find((span) => span.kind === SPAN_KIND_SERVER);
    expect(serverSpan?.parentSpanId).toBe(routerSpanId);
    const names = spans.map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(['graphql.parse', 'graphql.validate', 'query Front', 'graphql.resolve recommendations']));
    const renderClient = spans.find(isRenderClient);
    expect(attribute(renderClient as OtlpSpan, 'url.full')).toBe(`${proxy.url}${RENDER_PATH}`);

    const renderRequests = proxy.requests.filter((request) => request.path === RENDER_PATH);
    expect(renderRequests.map((request) => request.traceparent)).toEqual([`00-${traceId}-${renderClient?.spanId}-01`]);

    // A dashboard query signs in (password in the body) and sends the bearer token: neither may be exported.
    const today = await fetch(subgraph.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ dashboard(query: { dates: { last: { number: 1, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }',
      }),
    });
    expect(today.status).toBe(200);
    const isClientFor = (endpoint: string) => (span: OtlpSpan) =>
      span.kind === SPAN_KIND_CLIENT && String(attribute(span, 'url.full')).endsWith(endpoint);
    await receiver.waitFor((all) => all.some(isClientFor('/api/user/signin')) && all.some(isClientFor('/api/dashboard/query')), 10_000);

    const exported = receiver.rawBodies.join('\n');
    expect(exported).not.toContain(DEMO_API_USER.password);
    expect(exported).not.toContain(marker);
    expect(exported).not.toMatch(/Bearer|eyJ[\w-]+\./);

    child?.kill('SIGTERM');
    expect(await subgraph.exited).toBe(0);
  }, 180_000);
});
