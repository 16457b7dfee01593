/**
 * Readiness follows the event loop (issue 35 item 1): a replica whose loop
 * stays lagging above READINESS_MAX_EVENT_LOOP_LAG_MS for
 * READINESS_EVENT_LOOP_LAG_SECONDS answers `/health/ready` 503 `degraded`
 * (a load balancer sends traffic elsewhere), and `ready` again once the lag
 * falls; `/health/live` keeps answering 200 throughout (nothing to restart).
 * The test lags its own loop with synchronous work between turns, as a hot
 * feed or a large fan-out would, until readiness says so: awaited, not timed.
 */
import type { AddressInfo } from 'node:net';
import { SustainedLag } from '../../src/observability/eventLoopLag';
import { startTestServer } from '../support/subgraph';

jest.setTimeout(60_000);

type Started = Awaited<ReturnType<typeof startTestServer>>;
let server: Started | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function ready(baseUrl: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/health/ready`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Blocks the loop for `ms` (work that never yields), as a hot loop does. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spinning on purpose
  }
}

it('turns degraded (503) while the event loop stays lagging, and ready again once it recovers', async () => {
  server = await startTestServer({ config: { readiness: { maxEventLoopLagMs: 50, eventLoopLagSeconds: 1 } } });
  await new Promise<void>((resolve) => server!.httpServer.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;
  expect(await ready(baseUrl)).toEqual({ status: 200, body: { status: 'ready' } });

  let answer = await ready(baseUrl);
  while (answer.status === 200) {
    busy(150);
    await new Promise((resolve) => setImmediate(resolve));
    answer = await ready(baseUrl);
  }
  expect(answer).toEqual({ status: 503, body: { status: 'degraded', eventLoopLagMs: expect.any(Number) } });
  expect(answer.body.eventLoopLagMs).toBeGreaterThan(50);
  const live = await fetch(`${baseUrl}/health/live`);
  expect(live.status).toBe(200);

  // The lag falls: the next sample below the limit makes it ready again.
  while (answer.status !== 200) answer = await ready(baseUrl);
  expect(answer).toEqual({ status: 200, body: { status: 'ready' } });
});

describe('SustainedLag', () => {
  const settings = { maxEventLoopLagMs: 100, eventLoopLagSeconds: 3 };

  it('degrades once every sample stayed above the limit for the whole period, and one sample below starts again', () => {
    const lag = new SustainedLag(settings);
    lag.sample(500, 0, 1_000);
    lag.sample(500, 1_000, 2_000);
    expect(lag.degraded()).toBe(false);
    lag.sample(20_000, 2_000, 22_000);
    expect(lag.degraded()).toBe(true);
    expect(lag.lastLagMs()).toBe(20_000);
    lag.sample(5, 22_000, 23_000);
    expect(lag.degraded()).toBe(false);
    lag.sample(500, 23_000, 24_000);
    lag.sample(500, 24_000, 25_000);
    expect(lag.degraded()).toBe(false);
  });

  it('never degrades with READINESS_MAX_EVENT_LOOP_LAG_MS=0', () => {
    const lag = new SustainedLag({ ...settings, maxEventLoopLagMs: 0 });
    for (let second = 0; second < 60; second += 1) lag.sample(60_000, second * 1000, (second + 1) * 1000);
    expect(lag.degraded()).toBe(false);
  });
});
