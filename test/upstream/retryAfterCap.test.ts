/**
 * Retry-After is bounded (MAX_RETRY_AFTER_SECONDS, default 300), and after a
 * pause one probe goes first: the others follow only once it succeeds.
 * Everything runs on an injected clock: time moves only when the test says so.
 */
import { DeadlineTicks } from '../../src/upstream/transport/deadlines';
import type { HttpClient, JsonRequest } from '../../src/upstream/transport/httpClient';
import { DEFAULT_UPSTREAM_PATH, transportDefaults } from '../support/upstreamOptions';
import { createAgent } from '../../src/upstream/transport/agent';
import { createHttpClient } from '../../src/upstream/transport/httpClient';
import { parseRetryAfter } from '../../src/upstream/transport/retryAfter';
import { buildUrl } from '../../src/upstream/transport/url';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { formatError } from '../../src/graphql/errors';
import { MemoryRateStore } from '../../src/upstream/stores/rateStore';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { governedPath } from '../support/httpPath';
import { Governor } from '../../src/upstream/stages/governor';
import { sendJson, useFakeUpstream } from '../support/fakeUpstream';
import { deferred } from '../support/deferred';

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('Retry-After is clamped to the cap', () => {
  test.each([
    ['3600', 300],
    ['99999999999999999999', 300],
    ['1e400', undefined],
    ['Tue, 24 Nov 2026 12:00:30 GMT', 30],
    ['Fri, 24 Nov 2034 12:00:00 GMT', 300],
    ['Tue, 24 Nov 2026 11:00:00 GMT', 0],
    ['-5', undefined],
    ['soon', undefined],
    ['120', 120],
  ])('%s → %s with the default cap', (header, expected) => {
    expect(parseRetryAfter(header, NOW, DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds)).toBe(expected);
  });

  test('a smaller cap is honoured', () => {
    expect(parseRetryAfter('90', NOW, 60)).toBe(60);
  });

  describe('over HTTP', () => {
    const upstream = useFakeUpstream();
    const agent = createAgent({ connections: 2 });
    afterAll(async () => {
      await agent.destroy();
    });

    test('a 429 with an absurd Retry-After becomes an error whose retryAfter (and extensions.retryAfter) is the cap', async () => {
      const http = createHttpClient({
        deadlines: new DeadlineTicks(),
        ...transportDefaults(),
        dispatcher: agent,
        timeoutMs: 2_000,
        now: () => NOW,
        maxRetryAfterSeconds: 120,
      });
      upstream.handle((_request, response) =>
        sendJson(response, 429, { msg: 'Too many requests' }, { 'retry-after': '99999999999999999999' }),
      );
      const request: JsonRequest = { service: 'recommender', endpoint: '/r', url: buildUrl(upstream.url, '/r'), method: 'GET' };

      const error = await http.requestJson(request).then(
        () => undefined,
        (rejection: unknown) => rejection,
      );

      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ status: 429, retryAfterSeconds: 120 });
      const formatted = formatError({ message: 'x' }, error, { production: true });
      expect(formatted.extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryAfter: 120 });
    });
  });

  test('the governor never pauses longer than its cap, so its own refusals never say more', async () => {
    const { governor } = setUp({ maxRetryAfterSeconds: 300 });
    await governor.pause({ name: 'render', key: 'host', perMinute: 600 }, 1e20);

    const error = await governor.acquire({ name: 'render', key: 'host', perMinute: 600 }, WHERE).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );

    expect(error).toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: 300 });
  });
});

const WHERE = { service: 'recommender', endpoint: '/recommenderexperience/render.json' } as const;
const RENDER: JsonRequest = {
  service: 'recommender',
  endpoint: WHERE.endpoint,
  url: new URL('http://rec.example/recommenderexperience/render.json?id=IL_a&domain=d.example'),
  method: 'GET',
};

/** A clock whose sleepers wake only when the test moves it. */
class ManualClock {
  ms = NOW;
  private sleepers: { at: number; wake: () => void }[] = [];
  readonly now = () => this.ms;
  readonly sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      this.sleepers.push({ at: this.ms + ms, wake: resolve });
    });

  /** Moves to `at`, waking each sleeper in time order and letting what it started run before the next. */
  async runUntil(at: number): Promise<void> {
    await flush();
    for (;;) {
      const next = this.sleepers.filter((sleeper) => sleeper.at <= at).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.sleepers = this.sleepers.filter((sleeper) => sleeper !== next);
      this.ms = Math.max(this.ms, next.at);
      next.wake();
      await flush();
    }
    this.ms = Math.max(this.ms, at);
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let round = 0; round < 20; round += 1) await new Promise((resolve) => setImmediate(resolve));
}

function setUp(options: { maxRetryAfterSeconds?: number } = {}) {
  const clock = new ManualClock();
  const events: UpstreamEvent[] = [];
  const governor = new Governor({
    maxRetryAfterSeconds: DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds,
    store: new MemoryRateStore(),
    queueTimeoutMs: 10_000,
    now: clock.now,
    sleep: clock.sleep,
    observer: recordEvents(events),
    ...options,
  });
  return { clock, governor, events };
}

/** An upstream the test answers by hand, request by request. */
function scriptedUpstream() {
  const pending: ReturnType<typeof deferred<unknown>>[] = [];
  const http: HttpClient = {
    requestJson: () => {
      const answer = deferred<unknown>();
      pending.push(answer);
      return answer.promise;
    },
  };
  const tooMany = (seconds: number) =>
    new UpstreamError({ ...WHERE, kind: 'http', status: 429, retryAfterSeconds: seconds, upstreamMessage: 'Too many requests' });
  return { http, pending, tooMany };
}

describe('after a pause, one probe goes first', () => {
  function governedSetUp() {
    const { clock, governor } = setUp();
    const upstream = scriptedUpstream();
    const client = governedPath({
      http: upstream.http,
      governor,
      rateOf: () => ({ name: 'render', key: 'rec.example', perMinute: 600 }),
      // Shorter than the pauses below: a 429 is never repeated by the same call here.
      timeoutMs: 1_000,
      observer: recordEvents(),
    });
    return { clock, client, ...upstream };
  }

  async function pausedFor3Seconds(setup: ReturnType<typeof governedSetUp>) {
    const first = setup.client.requestJson(RENDER).catch((error: unknown) => error);
    await flush();
    setup.pending[0].reject(setup.tooMany(3));
    await expect(first).resolves.toMatchObject({ status: 429 });
    await setup.clock.runUntil(NOW + 3_000);
  }

  test('when the pause ends, only the probe is sent; when it succeeds, the waiting calls follow', async () => {
    const setup = governedSetUp();
    await pausedFor3Seconds(setup);

    const calls = [1, 2, 3].map(() => setup.client.requestJson(RENDER));
    // Held past the time the budget's even refill would let the others go: they still wait for the probe.
    await setup.clock.runUntil(NOW + 3_500);
    expect(setup.pending).toHaveLength(2);

    setup.pending[1].resolve({ probe: 'ok' });
    await setup.clock.runUntil(NOW + 4_000);
    expect(setup.pending).toHaveLength(4);
    setup.pending[2].resolve({ second: true });
    setup.pending[3].resolve({ third: true });

    await expect(Promise.all(calls)).resolves.toEqual([{ probe: 'ok' }, { second: true }, { third: true }]);
  });

  test('when the probe meets a 429 again, the budget pauses again and nothing else is sent before it ends', async () => {
    const setup = governedSetUp();
    await pausedFor3Seconds(setup);

    const calls = [1, 2, 3].map(() => setup.client.requestJson(RENDER).catch((error: unknown) => error));
    await setup.clock.runUntil(NOW + 3_000);
    expect(setup.pending).toHaveLength(2);
    setup.pending[1].reject(setup.tooMany(5));

    await setup.clock.runUntil(NOW + 7_999);
    expect(setup.pending).toHaveLength(2);

    // The second pause ends: again one probe, and the last call only after it succeeds.
    await setup.clock.runUntil(NOW + 8_000);
    expect(setup.pending).toHaveLength(3);
    setup.pending[2].resolve({ probe: 'ok' });
    await setup.clock.runUntil(NOW + 9_000);
    expect(setup.pending).toHaveLength(4);
    setup.pending[3].resolve({ last: true });

    const outcomes = await Promise.all(calls);
    expect(outcomes[0]).toMatchObject({ status: 429, retryAfterSeconds: 5 });
    expect(outcomes.slice(1)).toEqual([{ probe: 'ok' }, { last: true }]);
  });
});
