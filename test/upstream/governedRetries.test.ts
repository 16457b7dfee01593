/**
 * Every HTTP attempt spends its own slot of the budget: the HTTP client's
 * retries ask the governor again, over real HTTP to a fake upstream, with the
 * governor on an injected clock (its waits move the clock, nothing sleeps).
 */
import { DeadlineTicks } from '../../src/upstream/transport/deadlines';
import type { Agent } from 'undici';
import { DEFAULT_UPSTREAM_PATH, transportDefaults } from '../support/upstreamOptions';
import { createAgent } from '../../src/upstream/transport/agent';
import { createHttpClient, type JsonRequest } from '../../src/upstream/transport/httpClient';
import { buildUrl } from '../../src/upstream/transport/url';
import { MemoryRateStore } from '../../src/upstream/stores/rateStore';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { governedPath } from '../support/httpPath';
import { Governor } from '../../src/upstream/stages/governor';
import { inSequence, sendJson, useFakeUpstream } from '../support/fakeUpstream';

const upstream = useFakeUpstream();
let agent: Agent;

beforeEach(() => {
  agent = createAgent({ connections: 4 });
});
afterEach(async () => {
  await agent.destroy();
});

/** The dashboard query as ReportingAPI sends it: a POST that only reads, so it may be retried. */
function dashboard(): JsonRequest {
  const url = buildUrl(upstream.url, '/api/dashboard/query');
  return {
    service: 'reporting',
    endpoint: '/api/dashboard/query',
    url,
    method: 'POST',
    body: { metrics: ['pageViewsTotal'] },
    idempotent: true,
  };
}

function governedClient(perMinute: number) {
  let now = Date.UTC(2026, 10, 24, 12);
  const events: UpstreamEvent[] = [];
  const observer = recordEvents(events);
  const governor = new Governor({
    maxRetryAfterSeconds: DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds,
    store: new MemoryRateStore(),
    queueTimeoutMs: 2_000,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    observer,
  });
  const client = governedPath({
    http: createHttpClient({ deadlines: new DeadlineTicks(), ...transportDefaults(), dispatcher: agent, timeoutMs: 5_000 }),
    // Short pauses so the test stays quick; at the top of each step.
    backoff: { retries: 2, baseDelayMs: 10, maxDelayMs: 100, random: () => 1 },
    governor,
    rateOf: () => ({ name: 'reporting', key: 'api@demo.example', perMinute }),
    timeoutMs: 5_000,
    observer,
  });
  // Read as a string, so this file also compiles (and fails) on the code before `governor_granted` existed.
  const typeOf = (event: UpstreamEvent): string => event.type;
  const grants = () => events.filter((event) => typeOf(event) === 'governor_granted').length;
  return { client, events, grants, governor };
}

const badGateway: Parameters<typeof inSequence>[0] = (_request, response) => sendJson(response, 502, { msg: 'Bad gateway' });
const ok: Parameters<typeof inSequence>[0] = (_request, response) => sendJson(response, 200, [{ ok: true }]);

describe('retries spend the budget like first attempts', () => {
  test('a retry whose slot would come with less than a quarter of the timeout left is not sent: one request, the 502', async () => {
    // 63 s / 15.75 = one slot every 4 s after the burst: the retry's slot would come 4 s into a 5 s call.
    const perMinute = 15.75;
    const { client, governor } = governedClient(perMinute);
    const rate = { name: 'reporting', key: 'api@demo.example', perMinute } as const;
    for (let slot = 0; slot < 15; slot += 1) await governor.acquire(rate, { service: 'reporting', endpoint: '/api/dashboard/query' });
    upstream.handle(badGateway);

    await expect(client.requestJson(dashboard())).rejects.toMatchObject({ kind: 'http', status: 502 });
    expect(upstream.requests).toHaveLength(1);
  });

  test('budget 1/min and a 502: exactly one request, and the caller gets that 502', async () => {
    const { client, events } = governedClient(1);
    upstream.handle(badGateway);

    await expect(client.requestJson(dashboard())).rejects.toMatchObject({ kind: 'http', status: 502, upstreamMessage: 'Bad gateway' });

    expect(upstream.requests).toHaveLength(1);
    expect(events.filter((event) => event.type === 'governor' && event.outcome === 'refused')).toHaveLength(1);
  });

  test('budget 3/min and 502, 502, 200: three requests, each with its own slot, and the answer', async () => {
    const { client, grants } = governedClient(3);
    upstream.handle(inSequence(badGateway, badGateway, ok));

    await expect(client.requestJson(dashboard())).resolves.toEqual([{ ok: true }]);

    expect(upstream.requests).toHaveLength(3);
    expect(grants()).toBe(3);
  });

  test('budget 2/min and 502 every time: two requests, then the original 502; the third slot is never taken', async () => {
    const { client, grants } = governedClient(2);
    upstream.handle(badGateway);

    await expect(client.requestJson(dashboard())).rejects.toMatchObject({ status: 502 });

    expect(upstream.requests).toHaveLength(2);
    expect(grants()).toBe(2);
  });

  test('the governor grants exactly as many slots as requests were sent (the metric subgraph_upstream_requests_total counts)', async () => {
    const { client, grants } = governedClient(600);
    upstream.handle(inSequence(badGateway, ok, badGateway, badGateway, badGateway));

    await client.requestJson(dashboard());
    await client.requestJson(dashboard()).catch(() => undefined);

    expect(upstream.requests).toHaveLength(5);
    expect(grants()).toBe(5);
  });
});
