import type { HttpClient, JsonRequest } from '../../src/upstream/transport/httpClient';
import { DEFAULT_UPSTREAM_PATH } from '../support/upstreamOptions';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { MemoryRateStore } from '../../src/upstream/stores/rateStore';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { governedPath } from '../support/httpPath';
import { Governor } from '../../src/upstream/stages/governor';

const RENDER: JsonRequest = {
  service: 'recommender',
  endpoint: '/recommenderexperience/render.json',
  url: new URL('http://rec.example/recommenderexperience/render.json?id=IL_a&domain=d.example'),
  method: 'GET',
};
const SIGN_IN: JsonRequest = {
  service: 'reporting',
  endpoint: '/api/user/signin',
  url: new URL('http://api.example/api/user/signin'),
  method: 'POST',
};

/** An HttpClient that answers from a script, on a fake clock that sleeping moves. */
function setUp(script: (number | 'ok')[], deadlineMs = 10_000) {
  let now = 0;
  const sent: string[] = [];
  const events: UpstreamEvent[] = [];
  const http: HttpClient = {
    requestJson: async (request) => {
      sent.push(`${request.endpoint} @ ${now}`);
      const next = script.shift() ?? 'ok';
      if (next === 'ok') return { ok: true };
      throw new UpstreamError({ service: request.service, endpoint: request.endpoint, kind: 'http', status: 429, retryAfterSeconds: next });
    },
  };
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
    http,
    governor,
    rateOf: (request) => ({ name: request.endpoint === SIGN_IN.endpoint ? 'signin' : 'render', key: request.url.host, perMinute: 600 }),
    timeoutMs: deadlineMs,
    observer,
  });
  return { client, sent, events };
}

describe('governed HTTP client', () => {
  test('a 429 whose Retry-After fits the deadline pauses the budget, then the request is repeated once', async () => {
    const { client, sent, events } = setUp([3]);

    await expect(client.requestJson(RENDER)).resolves.toEqual({ ok: true });

    expect(sent).toEqual([`${RENDER.endpoint} @ 0`, `${RENDER.endpoint} @ 3000`]);
    expect(events.filter((event) => event.type !== 'governor_granted').slice(0, 2)).toEqual([
      { type: 'rate_limited', service: 'recommender', endpoint: RENDER.endpoint, retryAfterSeconds: 3 },
      { type: 'governor', outcome: 'paused', rate: 'render', waitMs: 3_000 },
    ]);
  });

  test('a 429 whose Retry-After does not fit the deadline fails at once, and the pause holds back the next caller', async () => {
    const { client, sent } = setUp([30], 10_000);

    await expect(client.requestJson(RENDER)).rejects.toMatchObject({ status: 429, retryAfterSeconds: 30 });
    await expect(client.requestJson(RENDER)).rejects.toMatchObject({ kind: 'budget_exhausted', retryAfterSeconds: 30 });
    expect(sent).toHaveLength(1);
  });

  test('a request that is not safe to repeat (sign-in) is not repeated after a 429', async () => {
    const { client, sent } = setUp([1]);
    await expect(client.requestJson(SIGN_IN)).rejects.toMatchObject({ status: 429 });
    expect(sent).toHaveLength(1);
  });

  test('a second 429 is not repeated again', async () => {
    const { client, sent } = setUp([1, 1]);
    await expect(client.requestJson(RENDER)).rejects.toMatchObject({ status: 429 });
    expect(sent).toHaveLength(2);
  });
});
