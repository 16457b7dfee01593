import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { createBreaker, isBreakerFailure } from '../../src/upstream/stages/breaker';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';

const WHERE = { service: 'recommender', endpoint: '/recommenderexperience/render.json' } as const;
const http = (status: number) => new UpstreamError({ ...WHERE, kind: 'http', status });
const START = Date.UTC(2026, 10, 23, 12);

let now = START;
beforeEach(() => {
  now = START;
});

function breaker() {
  const events: UpstreamEvent[] = [];
  const calls: string[] = [];
  const instance = createBreaker({
    ...WHERE,
    cooldownMs: 10_000,
    failureThreshold: 3,
    now: () => now,
    observer: recordEvents(events),
  });
  const run = (outcome: UpstreamError | string) =>
    instance.execute(async () => {
      calls.push(typeof outcome === 'string' ? outcome : `fail ${outcome.status ?? outcome.kind}`);
      if (typeof outcome !== 'string') throw outcome;
      return outcome;
    });
  return { run, events, calls };
}

const settle = (work: Promise<unknown>) =>
  work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: error instanceof UpstreamError ? error.kind : String(error) }),
  );

describe('circuit breaker', () => {
  test('opens after consecutive upstream failures, then refuses at once without calling', async () => {
    const { run, events, calls } = breaker();
    for (let failure = 0; failure < 3; failure += 1) await settle(run(http(503)));

    const refused = await settle(run('never sent'));

    expect(refused).toEqual({ error: 'circuit_open' });
    expect(calls).toEqual(['fail 503', 'fail 503', 'fail 503']);
    expect(events).toEqual([{ type: 'breaker', service: 'recommender', state: 'open' }]);
  });

  test('a success between failures keeps it closed', async () => {
    const { run, calls } = breaker();
    await settle(run(http(503)));
    await settle(run(http(503)));
    await settle(run('ok'));
    await settle(run(http(503)));
    await settle(run(http(503)));
    expect(await settle(run('still closed'))).toEqual({ value: 'still closed' });
    expect(calls).toHaveLength(6);
  });

  test('4xx answers about the request never open it', async () => {
    const { run } = breaker();
    for (const status of [400, 404, 429, 400, 404, 429]) await settle(run(http(status)));
    expect(await settle(run('closed'))).toEqual({ value: 'closed' });
  });

  test('after the cool-down one probe goes through; its success closes the circuit', async () => {
    const { run, events } = breaker();
    for (let failure = 0; failure < 3; failure += 1) await settle(run(http(500)));
    now += 9_999;
    expect(await settle(run('too early'))).toEqual({ error: 'circuit_open' });

    now += 1;
    expect(await settle(run('probe'))).toEqual({ value: 'probe' });
    expect(await settle(run('closed again'))).toEqual({ value: 'closed again' });
    expect(events.map((event) => event.type === 'breaker' && event.state)).toEqual(['open', 'half_open', 'closed']);
  });

  test('while the probe is in flight, other calls fail fast; a failed probe reopens it for another cool-down', async () => {
    const { run, events } = breaker();
    for (let failure = 0; failure < 3; failure += 1) await settle(run(http(504)));
    now += 10_000;

    const probe = settle(run(http(503)));
    const during = await settle(run('during the probe'));
    await probe;

    expect(during).toEqual({ error: 'circuit_open' });
    expect(await settle(run('right after'))).toEqual({ error: 'circuit_open' });
    expect(events.map((event) => event.type === 'breaker' && event.state)).toEqual(['open', 'half_open', 'open']);
  });

  test('counts 5xx, timeouts and network failures; not 4xx, bad responses or its own refusals', () => {
    expect(
      [
        http(500),
        http(503),
        new UpstreamError({ ...WHERE, kind: 'timeout' }),
        new UpstreamError({ ...WHERE, kind: 'network', reason: 'ECONNREFUSED' }),
      ].map(isBreakerFailure),
    ).toEqual([true, true, true, true]);
    expect(
      [
        http(400),
        http(404),
        http(429),
        new UpstreamError({ ...WHERE, kind: 'bad_response' }),
        new UpstreamError({ ...WHERE, kind: 'circuit_open' }),
        new Error('bug'),
      ].map(isBreakerFailure),
    ).toEqual([false, false, false, false, false, false]);
  });
});
