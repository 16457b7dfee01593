import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { DEFAULT_UPSTREAM_PATH } from '../support/upstreamOptions';
import { MemoryRateStore, RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { Governor, type Rate } from '../../src/upstream/stages/governor';

const WHERE = { service: 'reporting', endpoint: '/api/dashboard/query' } as const;
const START = Date.UTC(2026, 10, 23, 12);

/** A governor on a fake clock: sleeping moves the clock, so nothing waits for real. */
function governorAt(options: { queueTimeoutMs?: number } = {}) {
  let now = START;
  const slept: number[] = [];
  const events: UpstreamEvent[] = [];
  const governor = new Governor({
    maxRetryAfterSeconds: DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds,
    store: new MemoryRateStore(),
    queueTimeoutMs: options.queueTimeoutMs ?? 2_000,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    observer: recordEvents(events),
  });
  const grants = () => events.filter((event) => event.type === 'governor_granted').length;
  // The queue's own events; each grant is counted by `grants`.
  const queueEvents = () => events.filter((event) => event.type === 'governor');
  return { governor, slept, events: { queue: queueEvents, grants }, advance: (ms: number) => (now += ms), elapsed: () => now - START };
}

async function refusal(work: Promise<unknown>): Promise<UpstreamError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

const perMinute = (n: number, key = 'api@demo.example'): Rate => ({ name: 'reporting', key, perMinute: n });

describe('Governor', () => {
  test('a full bucket lets a burst of the per-minute budget through at once', async () => {
    const { governor, slept } = governorAt();
    for (let call = 0; call < 60; call += 1) await governor.acquire(perMinute(60), WHERE);
    expect(slept).toEqual([]);
  });

  test('beyond the burst, calls queue one refill interval apart', async () => {
    const { governor, slept, events } = governorAt();
    for (let call = 0; call < 60; call += 1) await governor.acquire(perMinute(60), WHERE);

    await governor.acquire(perMinute(60), WHERE);
    await governor.acquire(perMinute(60), WHERE);

    // One interval is a 60th of RATE_WINDOW_MS: a second and 5% (the margin behind the vendor's refill).
    const interval = RATE_WINDOW_MS / 60;
    expect(slept).toEqual([interval, interval]);
    expect(events.grants()).toBe(62);
    expect(events.queue()).toEqual([
      { type: 'governor', outcome: 'queued', rate: 'reporting', waitMs: interval },
      { type: 'governor', outcome: 'released', rate: 'reporting', waitMs: interval },
      { type: 'governor', outcome: 'queued', rate: 'reporting', waitMs: interval },
      { type: 'governor', outcome: 'released', rate: 'reporting', waitMs: interval },
    ]);
  });

  test('a call that would wait longer than the queue timeout is refused at once with retryAfter, spending nothing', async () => {
    const { governor, slept, events, advance } = governorAt({ queueTimeoutMs: 2_000 });
    await governor.acquire(perMinute(1), WHERE);

    const error = await refusal(governor.acquire(perMinute(1), WHERE));

    expect(error).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: RATE_WINDOW_MS / 1000, service: 'reporting' });
    expect(slept).toEqual([]);
    expect(events.queue()).toEqual([{ type: 'governor', outcome: 'refused', rate: 'reporting', waitMs: RATE_WINDOW_MS }]);
    expect(events.grants()).toBe(1);
    // The refusal took nothing: one window later the next call goes at once.
    advance(RATE_WINDOW_MS);
    await governor.acquire(perMinute(1), WHERE);
    expect(slept).toEqual([]);
  });

  test('budgets are separate per key and per budget name', async () => {
    const { governor, slept } = governorAt();
    await governor.acquire(perMinute(1, 'one@demo.example'), WHERE);
    await governor.acquire(perMinute(1, 'two@demo.example'), WHERE);
    await governor.acquire({ name: 'signin', key: 'one@demo.example', perMinute: 1 }, WHERE);
    expect(slept).toEqual([]);
  });

  test('a pause (upstream 429 + Retry-After) holds back every caller until it ends, then refills evenly', async () => {
    const { governor, slept, events, elapsed } = governorAt({ queueTimeoutMs: 5_000 });
    await governor.pause(perMinute(600), 3);

    const probe = await governor.acquire(perMinute(600), WHERE);
    // The first call after the pause is the probe; the others go only once it was answered (retryAfterCap.test.ts).
    expect(probe.probe).toBe(true);
    probe.finish('answered');
    await governor.acquire(perMinute(600), WHERE);
    const refused = await refusal(governor.acquire(perMinute(600), WHERE, 0));

    expect(slept).toEqual([3_000, RATE_WINDOW_MS / 600]);
    expect(elapsed()).toBe(3_000 + RATE_WINDOW_MS / 600);
    expect(refused.retryAfterSeconds).toBe(1);
    expect(events.queue()[0]).toEqual({ type: 'governor', outcome: 'paused', rate: 'reporting', waitMs: 3_000 });
  });

  test('a pause longer than the queue timeout refuses at once with the pause as retryAfter', async () => {
    const { governor } = governorAt({ queueTimeoutMs: 2_000 });
    await governor.pause(perMinute(600), 30);
    const error = await refusal(governor.acquire(perMinute(600), WHERE));
    expect(error).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: 30 });
  });

  test("a retry never becomes the probe: after another call's pause, the bucket is not held by a probe nobody finishes", async () => {
    const { governor, advance } = governorAt({ queueTimeoutMs: 2_000 });
    const turn = await governor.acquire(perMinute(600), WHERE);
    expect(turn.probe).toBe(false);
    await governor.pause(perMinute(600), 1); // another call met a 429
    advance(1_500);

    // This call's retry, once the pause is over: refused (the caller keeps its own error), never the probe.
    const retry = await refusal(governor.acquire(perMinute(600), WHERE, 10_000, turn));
    expect(retry.kind).toBe('budget_exhausted');

    advance(60_000);
    const next = await governor.acquire(perMinute(600), WHERE);
    expect(next.probe).toBe(true);
    next.finish('answered');
    await expect(governor.acquire(perMinute(600), WHERE)).resolves.toMatchObject({ probe: false });
  });
});
